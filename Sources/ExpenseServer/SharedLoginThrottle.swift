/// A login throttle whose failures every daemon of one database shares (``PostgresLoginThrottle``): consulted
/// after this daemon's own ``AuthThrottle``, the first, local gate (Protocol.md section 4).
///
/// Both calls return at once (they are made on the network loop's thread) and call `completion` on another
/// thread once the database has answered.
protocol SharedLoginThrottle: Sendable {
    /// Reserves a turn for an attempt from `address` at `ledger` in the shared count.
    func admit(_ address: String, ledger: String, completion: @escaping @Sendable (AuthThrottle.Decision) -> Void)
    /// Records a failed attempt from `address` at `ledger`; `completion` runs once it is counted.
    func recordFailure(_ address: String, ledger: String, completion: @escaping @Sendable () -> Void)
}
