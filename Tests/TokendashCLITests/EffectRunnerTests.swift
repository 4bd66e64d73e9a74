import Dashboard
import DashboardRuntime
import Faults
import Fleet
import FleetTables
import Foundation
import LiveSession
import ProviderEvents
import ProviderVocabulary
import TestSupport
import Testing
import TokenServer

@testable import TokendashCLI

/// The live effect runner against a session of simulated SDKs over fake backends: each effect is
/// carried out on the SDKs, the server or the theme files, and answered with the action the
/// reducer waits for. No socket: the transports answer from closures, the server is never started.
@Suite(.timeLimit(.minutes(15))) struct EffectRunnerTests {
    /// Records nothing and shuts down at once: the session's header needs of a transport.
    struct QuietTransport: SessionTransport {
        var isInsecure: Bool { false }
        func proxyDisplay(for url: URL) -> String? { nil }
        func shutdown() async {}
    }

    struct Rig {
        let trips = mintingTransport(kind: .consumer)
        let vehicles = mintingTransport(kind: .driver)
        let consumers: SimulatedSDKs<TripAuthorizationContext>
        let drivers: SimulatedSDKs<VehicleAuthorizationContext>
        let runner: EffectRunner

        init(server: EmbeddedTokenServer? = nil) {
            let events = EventBroadcaster()
            let consumerEndpoint = TokenEndpoint.sampleBackend(.consumer, base: "http://backend.test")
            let driverEndpoint = TokenEndpoint.sampleBackend(.driver, base: "http://backend.test")
            consumers = SimulatedSDKs(
                ids: ["trip-1", "trip-2"], endpoint: consumerEndpoint, transport: trips, events: events,
                refreshMargin: 300)
            drivers = SimulatedSDKs(
                ids: ["vehicle-1", "vehicle-2"], endpoint: driverEndpoint, transport: vehicles, events: events,
                refreshMargin: 300)
            let session = BackendSession(
                server: server, events: events, solution: .onDemand, consumers: consumers, drivers: drivers,
                deviceClock: DeviceClock(), fleetEngine: nil, consumerEndpoint: consumerEndpoint,
                driverEndpoint: driverEndpoint, transport: QuietTransport(), roles: ProviderKind.Role.allCases)
            let source = LiveEventSource(
                broadcaster: events, members: [.consumer: ["trip-1", "trip-2"], .driver: ["vehicle-1", "vehicle-2"]])
            runner = EffectRunner(
                session: session, catalog: ThemeCatalog(directories: []), events: source,
                snapshots: SnapshotWriter(recording: nil, events: { [] }, version: "test"))
        }
    }

    @Test func aForcedRefreshFetchesTheFollowedMembersTokenAndNoOther() async {
        let rig = Rig()
        // A provider refreshes the ID it last fetched for: the SDK's first call comes first.
        _ = await rig.runner.perform(.switchID(.consumer, "trip-2", member: 1))
        #expect(await rig.runner.perform(.forceRefresh(.consumer, member: 1)) == [])
        // The second fetch is the forced one: the first token was still fresh in the cache.
        #expect(rig.trips.urls.map(\.lastPathComponent) == ["trip-2", "trip-2"])
        #expect(rig.vehicles.count == 0)
    }

    @Test func aSwitchedIDIsTheMembersAndIsFetched() async {
        let rig = Rig()
        #expect(await rig.runner.perform(.switchID(.driver, "vehicle-9", member: 0)) == [])
        #expect(await rig.drivers.id(at: 0) == "vehicle-9")
        #expect(rig.vehicles.urls.map(\.lastPathComponent) == ["vehicle-9"])
    }

    @Test func followAndFindAreAnsweredFromTheGroups() async {
        let rig = Rig()
        let followed = await rig.runner.perform(.follow(.consumer, index: 1))
        #expect(followed == [.following(.consumer, index: 1, member: MemberSnapshot(id: "trip-2"))])
        #expect(
            await rig.runner.perform(.findMember(.driver, id: "vehicle-2", from: 0))
                == [.memberFound(.driver, id: "vehicle-2", index: 1, from: 0)])
        #expect(
            await rig.runner.perform(.findMember(.driver, id: "nobody", from: 1))
                == [.memberFound(.driver, id: "nobody", index: nil, from: 1)])
    }

    @Test func pauseStopsBothSides() async {
        let rig = Rig()
        #expect(await rig.runner.perform(.setPaused(true)) == [])
        #expect(rig.consumers.isPaused && rig.drivers.isPaused)
        _ = await rig.runner.perform(.setPaused(false))
        #expect(!rig.consumers.isPaused && !rig.drivers.isPaused)
    }

    @Test func aFaultIsSetOnTheServerAndAnsweredWithWhatItHolds() async throws {
        let without = Rig()
        #expect(
            await without.runner.perform(.setFault(.http500, .both)) == [
                .message("fault injection needs the embedded token server or a source provider (--driver-source)")
            ])
        let server = try await EmbeddedTokenServer()
        let rig = Rig(server: server)
        #expect(await rig.runner.perform(.setFault(.http500, .driver)) == [.faultsChanged([.driver: .http500])])
        #expect(
            await rig.runner.perform(.setFault(.wrongID, .both)) == [
                .faultsChanged([.consumer: .wrongID, .driver: .wrongID])
            ])
        #expect(await rig.runner.perform(.setFault(nil, .both)) == [.faultsChanged([:])])
    }

    @Test func themesMarksAndFiltersAreAnswered() async throws {
        let rig = Rig()
        let mono = try ThemeCatalog(directories: []).load("mono")
        #expect(await rig.runner.perform(.loadTheme("mono")) == [.themeLoaded(mono)])
        let missing = await rig.runner.perform(.loadTheme("no-such-theme"))
        guard case .message(let text?)? = missing.first else {
            Issue.record("a missing theme answered \(missing)")
            return
        }
        #expect(text.hasPrefix("theme no-such-theme: "))
        let mark = Mark(number: 1, at: Date(timeIntervalSince1970: 1_800_000_000), note: "here")
        #expect(await rig.runner.perform(.addMark(mark)) == [.marked(mark)])
        let tables = await rig.runner.perform(.queryTables([.consumer: "trip-2"]))
        guard case .fleetTables(let table)? = tables.first else {
            Issue.record("a table filter answered \(tables)")
            return
        }
        #expect(table[.consumer] != nil)
    }
}
