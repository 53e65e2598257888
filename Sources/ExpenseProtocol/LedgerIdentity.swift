import FoundationEssentials

/// Who a ledger is and which history it is on (Protocol.md §5.7): `hello`'s `ledgerId`, `epoch` and `epochCursor`.
public struct LedgerIdentity: Hashable, Sendable {
    /// Made when the ledger is created and never changed (a backup and a restore keep it).
    public var ledgerId: UUID
    /// Changes whenever the ledger's history is replaced (a restore, a backup file).
    public var epoch: UUID
    /// The head at which the epoch began: records with `seq` at or below it are as the previous history had
    /// them; every change made in this epoch has a higher `seq`. 0 for a ledger whose history was never replaced.
    public var epochCursor: Int64

    public init(ledgerId: UUID, epoch: UUID, epochCursor: Int64) {
        self.ledgerId = ledgerId
        self.epoch = epoch
        self.epochCursor = epochCursor
    }
}
