import Foundation
import HTTPTransport
import JSONValues
import ProviderVocabulary
import TestSupport
import Testing

/// docs/operators.md's "Several taps" recipe, run as written: three `tokendash tap`s behind a
/// real nginx that routes by ID (`hash $request_uri consistent`), one real Prometheus scraping the
/// three with the shipped rules. 10,000 devices fetch once, 30 refetch at every update: each
/// churning ID is found by one tap, all its fetches counted there, and the churn gauges sum to
/// 30 with `TokendashTapChurn` matching. Then one tap stops: nginx moves its IDs, every request
/// gets the backend's answer or a 502, and the moved IDs' churn is found again on their new tap.
/// About 30 s alone; in the whole suite on two cores 190 s (10,000 fetches through three debug
/// builds), so its limit is the Prometheus suite's.
@Suite(.timeLimit(.minutes(15)), .serialized) struct TapFleetEndToEndTests {
    static let devices = 10_000
    static let churners = 30
    /// Fetches a churning device makes in each phase: one per update, over --churn-limit (4).
    static let refetches = 6

    static var missing: String? {
        NginxServer.missing
            ?? (BackgroundProcess.find("prometheus") == nil
                ? "prometheus is not installed (apt-get install prometheus; scripts/setup.sh installs it)" : nil)
    }

    /// One running tap: its process, where devices reach it, where Prometheus scrapes it.
    struct Tap {
        let process: BackgroundProcess
        let address: String
        let metrics: String

        /// The IDs whose fetches this tap read, each with how many.
        var fetches: [String: Int] {
            var counts: [String: Int] = [:]
            for line in process.output.split(separator: "\n") where line.contains(#""event":"tapped""#) {
                guard let json = try? JSONValue.decode(Data(line.utf8)), let id = json["id"]?.stringValue else {
                    continue
                }
                counts[id, default: 0] += 1
            }
            return counts
        }

        /// How many exchanges it has printed as read.
        var tapped: Int {
            process.output.split(separator: "\n").count { $0.contains(#""event":"tapped""#) }
        }

        /// The IDs of its `churn` summary line (printed as it stops), each with its fetches per token.
        var churn: [String: Double] {
            guard let line = process.output.split(separator: "\n").last(where: { $0.contains(#""event":"churn""#) }),
                let json = try? JSONValue.decode(Data(line.utf8)), case .array(let ids)? = json["ids"]
            else { return [:] }
            var churn: [String: Double] = [:]
            for entry in ids {
                guard let id = entry["id"]?.stringValue else { continue }
                churn[id] = entry["fetches_per_token"]?.numberValue ?? 0
            }
            return churn
        }

        static func start(upstream: String) async throws -> Tap {
            let process = try BackgroundProcess(
                BinaryRunner.binary,
                [
                    "tap", "--listen", "127.0.0.1:0", "--upstream", upstream, "--watch", "--summary", "--metrics",
                    "127.0.0.1:0",
                ], name: "tap")
            let address = try await process.await(#"listening on http://(127\.0\.0\.1:\d+)"#)
            let metrics = try await process.await(#"metrics on http://(127\.0\.0\.1:\d+)/metrics"#)
            guard let address, let metrics else {
                await process.stop()
                throw TapDidNotStart(output: process.output)
            }
            return Tap(process: process, address: address, metrics: metrics)
        }
    }

    struct TapDidNotStart: Error, CustomStringConvertible {
        let output: String
        var description: String { "a tap did not start: \(output.suffix(1_000))" }
    }

    static func churnerID(_ index: Int) -> (kind: String, id: String) {
        index % 2 == 0 ? ("consumer", "churn-trip-\(index)") : ("driver", "churn-vehicle-\(index)")
    }

    /// Sends `paths` through nginx, `width` at a time; the status of each.
    static func fetch(_ base: String, _ paths: [String], width: Int = 32) async throws -> [Int] {
        try await withThrowingTaskGroup(of: [Int].self) { group in
            for lane in 0..<width {
                group.addTask {
                    var statuses: [Int] = []
                    for index in stride(from: lane, to: paths.count, by: width) {
                        let url = try #require(URL(string: base + paths[index]))
                        let answer = try? await sharedTransport.send(TransportRequest(url: url, timeout: 30))
                        statuses.append(answer?.status ?? 0)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// The churning devices' fetches of one phase: a round at each update, every device once a round.
    static func churnRounds(_ base: String, rounds: Int = refetches) async throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<rounds {
            let round = (0..<churners).map { index -> String in
                let (kind, id) = churnerID(index)
                return "/token/\(kind)/\(id)"
            }
            statuses += try await fetch(base, round, width: churners)
        }
        return statuses
    }

    @Test(.enabled(if: Self.missing == nil, "\(Self.missing ?? "")"))
    func threeTapsBehindNginxFindEveryChurningIDAndCarryOnWhenOneStops() async throws {
        let serve = try BackgroundProcess(BinaryRunner.binary, ["serve", "--port", "0"], name: "serve")
        defer { Task { await serve.stop() } }
        let backend = try #require(
            try await serve.await(#"listening on (http://127\.0\.0\.1:\d+)"#), "serve: \(serve.output)")
        var taps: [Tap] = []
        defer { for tap in taps { Task { await tap.process.stop() } } }
        for _ in 0..<3 { taps.append(try await Tap.start(upstream: backend)) }

        let prometheus = try await PrometheusFleet.start(jobs: [("tokendash-tap", taps.map(\.metrics))])
        defer { Task { await prometheus.stop() } }

        try await NginxServer.run(upstreams: taps.map(\.address), block: 1) { nginx in
            // Phase 1: every device fetches once; the churning ones at every update.
            let paths = (0..<Self.devices).map { index in
                index % 2 == 0 ? "/token/consumer/trip-\(index)" : "/token/driver/vehicle-\(index)"
            }
            let statuses = try await Self.fetch(nginx.url, paths) + Self.churnRounds(nginx.url)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")

            // Every exchange read (the readers run behind the forwarding, below its priority).
            let sent = statuses.count
            #expect(try await eventually(every: .milliseconds(500)) { taps.map(\.tapped).reduce(0, +) == sent })
            // Every churning ID on one tap, all its fetches there: what a single tap would count.
            #expect(
                try await prometheus.eventually("sum(tokendash_tap_churning_ids)", equals: Double(Self.churners)))
            // The alert sums over the three taps, by kind: half the churning IDs are trips.
            let summaries = try await prometheus.alerts("TokendashTapChurn") { summaries in
                summaries.count == 2 && summaries[0].hasPrefix("consumer: 15 IDs fetch tokens")
                    && summaries[1].hasPrefix("driver: 15 IDs fetch tokens")
            }
            #expect(summaries.count == 2, "\(summaries)")
            let counts = taps.map(\.fetches)
            for index in 0..<Self.churners {
                let id = Self.churnerID(index).id
                let seen = counts.compactMap { $0[id] }
                #expect(seen == [Self.refetches], "\(id) read by the taps \(seen) times")
            }
            // The hash spreads the devices over the three.
            for (index, tapCounts) in counts.enumerated() {
                #expect(tapCounts.count > Self.devices / 6, "tap \(index) read \(tapCounts.count) IDs")
            }

            // Phase 2: the tap with the most churning IDs stops; its IDs move, and churn again.
            let churnerIDs = Set((0..<Self.churners).map { Self.churnerID($0).id })
            let stopped = try #require(
                counts.indices.max {
                    counts[$0].keys.filter(churnerIDs.contains).count
                        < counts[$1].keys.filter(churnerIDs.contains).count
                })
            let moved = Set(counts[stopped].keys.filter(churnerIDs.contains))
            #expect(!moved.isEmpty)
            // Two rounds while the tap stops: a request in flight at the stop gets the backend's
            // answer (nginx tried the next tap) or a 502, nothing else.
            async let inFlight = Self.churnRounds(nginx.url, rounds: 2)
            await taps[stopped].process.stop()
            let during = try await inFlight
            #expect(
                during.allSatisfy { $0 == 200 || $0 == 502 },
                "\(Dictionary(grouping: during) { $0 }.mapValues(\.count))")
            let stoppedChurn = taps[stopped].churn
            #expect(moved.isSubset(of: Set(stoppedChurn.keys)), "the stopped tap's summary names its churning IDs")
            // Then a phase of updates: the moved IDs churn on their new taps within one token lifetime.
            let after = try await Self.churnRounds(nginx.url)
            #expect(after.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: after) { $0 }.mapValues(\.count))")
            #expect(
                try await prometheus.eventually("sum(tokendash_tap_churning_ids)", equals: Double(Self.churners)),
                "the two taps left count every churning ID, the moved ones again")

            let remaining = taps.indices.filter { $0 != stopped }
            for index in remaining { await taps[index].process.stop() }
            var found: [String: Double] = [:]
            for index in remaining { found.merge(taps[index].churn) { max($0, $1) } }
            #expect(Set(found.keys) == churnerIDs, "each churning ID in a summary of the two left")
            for id in churnerIDs {
                // An ID that stayed has every fetch on its tap; a moved one at least the phase after the stop.
                let fetched = Double(moved.contains(id) ? Self.refetches : 2 * Self.refetches + 2)
                let ratio = found[id] ?? 0
                #expect(
                    moved.contains(id) ? ratio >= fetched && ratio <= fetched + 2 : ratio == fetched,
                    "\(id)\(moved.contains(id) ? " (moved)" : ""): \(ratio) fetches per token")
            }
        }
    }
}
