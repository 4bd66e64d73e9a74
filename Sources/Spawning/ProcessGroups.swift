import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process groups of the children that run someone else's code (a customer's provider class),
/// so that nothing they start outlives its host or tokendash: a group is ended with SIGTERM, then
/// SIGKILL after `grace`, on a restart, when its leader dies, and, for every group still alive,
/// when tokendash exits. A process that leaves the group (`setsid`, `setpgid`) escapes it; only a
/// cgroup, which needs privileges tokendash does not ask for, would hold that one too.
public enum ProcessGroups {
    /// How long a group has after SIGTERM before SIGKILL: time to flush a log, not to linger.
    public static let graceNanoseconds = 500_000_000

    // Guards the groups started and not yet sent their SIGKILL, and whether the exit hook is set.
    private static let live = Mutex<(groups: Set<pid_t>, hooked: Bool)>(([], false))

    /// Takes `group` (a child spawned with `ownProcessGroup`) as one to end at tokendash's exit.
    public static func adopt(_ group: pid_t) {
        let hook = live.withLock { state -> Bool in
            state.groups.insert(group)
            defer { state.hooked = true }
            return !state.hooked
        }
        if hook { atexit { ProcessGroups.endAllNow() } }
    }

    /// Sends the group SIGTERM now and SIGKILL after the grace, on a queue, so the caller waits for
    /// neither. Safe to call more than once for a group.
    public static func end(_ group: pid_t) {
        guard group > 1 else { return }
        _ = kill(-group, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(graceNanoseconds)) {
            finish(group)
        }
    }

    /// Whether any process of `group` still exists (a zombie not yet reaped counts).
    public static func isAlive(_ group: pid_t) -> Bool { kill(-group, 0) == 0 }

    /// SIGKILL for the group, and it is forgotten. The group ID stays the group's while any member
    /// lives (Linux hands no new process an ID in use as a group's), so this reaches no stranger
    /// unless every member died within the grace and the ID came round again in that half second.
    private static func finish(_ group: pid_t) {
        let known = live.withLock { $0.groups.remove(group) != nil }
        if known { _ = kill(-group, SIGKILL) }
    }

    /// tokendash is exiting: every group still known is ended, the grace waited once for them all.
    static func endAllNow() {
        let groups = live.withLock { state -> Set<pid_t> in
            defer { state.groups = [] }
            return state.groups
        }
        guard !groups.isEmpty else { return }
        for group in groups { _ = kill(-group, SIGTERM) }
        let alive = groups.filter(isAlive)
        guard !alive.isEmpty else { return }
        var pause = timespec(tv_sec: 0, tv_nsec: graceNanoseconds)
        var left = timespec()
        while nanosleep(&pause, &left) == -1, errno == EINTR { pause = left }
        for group in alive { _ = kill(-group, SIGKILL) }
    }
}
