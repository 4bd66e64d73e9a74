import Foundation
import ProviderVocabulary
import Testing

@testable import Dashboard
@testable import UICore

/// `--solution last-mile`: the same two pane slots, holding the delivery consumer (left) and the
/// delivery driver (right); events, keys and effects go to the slot of their kind's role.
@Suite(.timeLimit(.minutes(15))) struct LastMileDashboardTests {
    static func running() -> DashboardState {
        var s = DashboardState(
            consumerID: "tracking-0001", driverID: "delivery-vehicle-0001", now: Fixtures.t0,
            backend: "embedded on 127.0.0.1:40123", faultsAvailable: true, solution: .lastMile)
        s.timeZone = TimeZone(identifier: "UTC") ?? .current
        for (kind, id) in [
            (ProviderKind.deliveryConsumer, "tracking-0001"), (.deliveryDriver, "delivery-vehicle-0001"),
        ] {
            Fixtures.apply(&s, Fixtures.event(kind, id, .fetchStarted(reason: .noToken)))
            Fixtures.apply(&s, Fixtures.event(kind, id, .fetched(Fixtures.token(kind, id: id), latency: 0.012)))
        }
        Fixtures.apply(&s, .tick(Fixtures.t0.addingTimeInterval(15)))
        return s
    }

    @Test func deliveryPanesSideBySide() {
        let s = Self.running()
        #expect(s.consumer.kind == .deliveryConsumer && s.driver.kind == .deliveryDriver)
        #expect(s.consumer.token?.id == "tracking-0001" && s.driver.token?.id == "delivery-vehicle-0001")
        let lines = Renderer.render(s, width: 160, height: 48).lines
        #expect(
            lines[1].contains("┌─ ▶ Delivery consumer (tracking token) ─")
                && lines[1].contains("┌─ Delivery driver (delivery vehicle token) ─"))
        #expect(
            lines[2].contains("Tracking   tracking-0001  ● ok")
                && lines[2].contains("Vehicle ID delivery-vehicle-0001  ● ok"))
        let text = lines.joined(separator: "\n")
        // The verdict names the kind's own claim (cut at the pane's width).
        #expect(text.contains("60 s lifetime, trackingid tracking-"))
        #expect(text.contains("60 s lifetime, deliveryvehicleid de"))
        // The footer names what t and v switch.
        #expect(lines[47].contains("t Tracking v Delivery "), "\(lines[47])")
    }

    @Test func onDemandEventsDoNotReachDeliveryPanes() {
        var s = Self.running()
        Fixtures.apply(
            &s, Fixtures.event(.consumer, "tracking-0001", .fetchFailed(.httpStatus(code: 500, body: "x"), latency: 0)))
        #expect(s.consumer.lastError == nil)
        #expect(s.consumer.counters.requests == 1)
    }

    @Test func keysActOnTheDeliveryKinds() {
        var s = Self.running()
        #expect(s.focus == .deliveryConsumer)
        #expect(Fixtures.apply(&s, .key(.character("r"))) == [.forceRefresh(.deliveryConsumer)])
        Fixtures.apply(&s, .key(.tab))
        #expect(s.focus == .deliveryDriver)
        #expect(
            Fixtures.apply(&s, .key(.character("R"))) == [
                .forceRefresh(.deliveryConsumer), .forceRefresh(.deliveryDriver),
            ])
        #expect(Fixtures.apply(&s, .key(.character("t"))) == [.switchID(.deliveryConsumer, "tracking-0002")])
        #expect(Fixtures.apply(&s, .key(.character("v"))) == [.switchID(.deliveryDriver, "delivery-vehicle-0002")])
        Fixtures.apply(&s, .key(.character("i")))
        #expect(Fixtures.text(s).contains("Switch delivery vehicle ID"))
    }
}
