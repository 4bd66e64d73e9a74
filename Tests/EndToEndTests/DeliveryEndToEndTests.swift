import Foundation
import ProviderVocabulary
import TestSupport
import Testing

/// Google's Last Mile Fleet Solution end to end: `decode` on delivery tokens, and
/// `watch --solution last-mile` against the embedded server.
@Suite(.serialized, .timeLimit(.minutes(15))) struct DeliveryEndToEndTests {
    /// A delivery token whose issuer is no Google service account, so no key set is fetched.
    static func token(_ authorization: [String: Any]) -> String {
        TestJWT.make(lifetime: 600, account: TestJWT.nonServiceAccount, claims: ["authorization": authorization])
    }

    // MARK: - decode

    @Test func decodeDetectsADeliveryDriverToken() async throws {
        let result = try await BinaryRunner.run(["decode", Self.token(["deliveryvehicleid": "van-3"])])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "rules (delivery vehicle token, any delivery vehicle ID): Fleet Engine would accept it"))
        #expect(result.stdout.contains("✓ authorization  deliveryvehicleid van-3"))
    }

    @Test func decodeDetectsADeliveryConsumerTokenByTaskIDs() async throws {
        let result = try await BinaryRunner.run([
            "decode", "--tracking-id", "track-9", Self.token(["taskids": ["task-1", "track-9"]]),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("rules (tracking ID track-9): Fleet Engine would accept it"))
        #expect(result.stdout.contains("✓ authorization  taskids track-9"))
        let detected = try await BinaryRunner.run(["decode", Self.token(["trackingid": "track-9"])])
        #expect(detected.stdout.contains("rules (tracking token, any tracking ID)"), "\(detected.stdout)")
    }

    @Test func decodeRefusesATokenForAnotherDeliveryVehicle() async throws {
        let result = try await BinaryRunner.run([
            "decode", "--delivery-vehicle-id", "van-4", Self.token(["deliveryvehicleid": "van-3"]),
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                #"✗ authorization  authorization.deliveryvehicleid is "van-3", not the requested "van-4""#))
        // An on-demand vehicle token is no delivery vehicle token.
        let vehicle = try await BinaryRunner.run([
            "decode", "--delivery-vehicle-id", "van-3", Self.token(["vehicleid": "van-3"]),
        ])
        #expect(vehicle.status == 1)
        #expect(vehicle.stdout.contains("no authorization.deliveryvehicleid (has vehicleid)"))
    }

    @Test func decodeTakesOneIDFlag() async throws {
        let result = try await BinaryRunner.run([
            "decode", "--trip-id", "t", "--tracking-id", "x", Self.token(["trackingid": "x"]),
        ])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "give one of --trip-id, --vehicle-id, --tracking-id, --delivery-vehicle-id, not --trip-id and --tracking-id"
            ))
    }

    // MARK: - watch

    @Test func watchLastMilePrintsDeliveryEvents() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--solution", "last-mile", "--duration", "2", "--update-interval", "0.5", "--summary",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let fetched = lines.filter { $0["event"] as? String == "fetched" }
        #expect(Set(fetched.compactMap { $0["provider"] as? String }) == ["delivery_consumer", "delivery_driver"])
        for event in fetched {
            let authorization = (event["claims"] as? [String: Any])?["authorization"] as? [String: Any]
            switch event["provider"] as? String {
            case "delivery_consumer":
                #expect(event["id"] as? String == "tracking-0001")
                #expect(authorization?["trackingid"] as? String == "tracking-0001")
            default:
                #expect(event["id"] as? String == "delivery-vehicle-0001")
                #expect(authorization?["deliveryvehicleid"] as? String == "delivery-vehicle-0001")
            }
        }
        #expect(!lines.contains { $0["event"] as? String == "fetch_failed" }, "\(result.stdout)")
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        #expect((summary["delivery_consumer"] as? [String: Any])?["requests"] as? Int == 1)
        #expect(summary["consumer"] == nil, "the summary names the kinds that ran")
    }

    @Test func watchLastMileAgainstAUserBackendUsesItsTemplates() async throws {
        let result = try await BinaryRunner.run([
            "watch", "--solution", "last-mile", "--duration", "1", "--tracking-id", "pkg-1",
            "--consumer-url", "http://127.0.0.1:1/token/delivery_consumer/{trackingId}",
            "--driver-url", "http://127.0.0.1:1/token/delivery_driver/{deliveryVehicleId}",
        ])
        #expect(result.status == 1, "no token from a dead backend")
        #expect(
            result.stderr.contains(
                "tokendash watch: tracking ID pkg-1 ended without a valid token: backend unreachable"),
            "\(result.stderr)")
        #expect(
            result.stdout.contains(
                #""error":"backend unreachable at http://127.0.0.1:1/token/delivery_consumer/pkg-1: connection refused""#
            ), "\(result.stdout)")
        #expect(result.stdout.contains("http://127.0.0.1:1/token/delivery_driver/delivery-vehicle-0001"))
    }
}
