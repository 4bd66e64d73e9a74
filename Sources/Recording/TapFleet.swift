import Fleet

/// How the dashboard shows `tap`'s real devices: a fleet whose members are learnt from the events,
/// as many as the fleet table keeps (`FleetStatistics.defaultCapacity` a kind).
public enum TapFleet {
    public static let size = FleetStatistics.defaultCapacity
}
