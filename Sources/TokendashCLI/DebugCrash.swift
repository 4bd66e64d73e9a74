import ArgumentParser
import Foundation

/// A crash on purpose, of each kind the terminal must survive (see `CrashRestorer`).
enum DebugCrash: String, ExpressibleByArgument, CaseIterable {
    case segv, bus, ill, trap, abrt

    func crash() {
        switch self {
        case .segv:
            // A real invalid access, not a raised signal.
            let address = UnsafeMutablePointer<Int>(bitPattern: 0x10)
            address?.pointee = 1
        case .ill:
            // Swift's own trap: a failed precondition is an invalid instruction on x86-64.
            let values: [Int] = []
            _ = values[Int(getpid()) % 1 + 1]
        case .bus: _ = raise(SIGBUS)
        case .trap: _ = raise(SIGTRAP)
        case .abrt: abort()
        }
    }
}
