import ExpenseCore
import Foundation

/// `hello` parameters: must be the first request on a connection.
public struct HelloParams: Hashable, Sendable {
    public var protocolVersion: Int64
    public var ledger: String
    public var token: String
    public var clientId: UUID
    public var clientName: String?
    /// The record kinds besides expenses the client asks to be served (Protocol.md §10); empty: expenses only,
    /// exactly as protocol 1 always was.
    public var kinds: [RecordKind]

    public init(protocolVersion: Int64, ledger: String, token: String, clientId: UUID, clientName: String?,
                kinds: [RecordKind] = []) {
        self.protocolVersion = protocolVersion
        self.ledger = ledger
        self.token = token
        self.clientId = clientId
        self.clientName = clientName
        self.kinds = kinds
    }
}

/// `hello` result.
public struct HelloResult: Hashable, Sendable {
    public var protocolVersion: Int64
    public var server: String
    public var ledger: String
    public var currency: Currency
    public var cursor: Int64
    /// The highest mutationId consumed for this clientId; 0 for a new client.
    public var lastMutationId: Int64
    /// The daemon's line limit in bytes (`--max-line`, Protocol.md §1): no line sent to it may be longer, and
    /// its pull pages are cut to it (§5.3). ``assumedMaxLine`` when the daemon does not announce one.
    public var maxLine: Int
    /// The ledger's identity and history epoch (Protocol.md §5.7); `nil` from a daemon that does not send them.
    public var identity: LedgerIdentity?
    /// What the token may do (Protocol.md §4, "Roles"); `nil` from a daemon older than roles (every token was
    /// then an owner's) or for a role this client does not know.
    public var role: TokenRole?
    /// The name of the token the `hello` was made with (`default` for a ledger's first token); `nil` from a
    /// daemon older than named tokens.
    public var tokenName: String?
    /// The kinds besides expenses the daemon serves on this connection: those the client asked for that it
    /// knows (Protocol.md §10); `nil` when the client asked for none (the member is then absent).
    public var kinds: [RecordKind]?

    /// What a client assumes of a daemon whose `hello` result has no `maxLine`: the protocol's default limit.
    public static let assumedMaxLine = 1_048_576

    public init(protocolVersion: Int64, server: String, ledger: String, currency: Currency, cursor: Int64, lastMutationId: Int64,
                maxLine: Int = HelloResult.assumedMaxLine, identity: LedgerIdentity? = nil, role: TokenRole? = nil,
                tokenName: String? = nil, kinds: [RecordKind]? = nil) {
        self.kinds = kinds
        self.protocolVersion = protocolVersion
        self.server = server
        self.ledger = ledger
        self.currency = currency
        self.cursor = cursor
        self.lastMutationId = lastMutationId
        self.maxLine = maxLine
        self.identity = identity
        self.role = role
        self.tokenName = tokenName
    }
}

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

/// `push` result: one result per mutation, in order, and the ledger's head after the push.
public struct PushResult: Hashable, Sendable {
    public var results: [MutationResult]
    public var cursor: Int64

    public init(results: [MutationResult], cursor: Int64) {
        self.results = results
        self.cursor = cursor
    }
}

/// `pull` parameters.
public struct PullParams: Hashable, Sendable {
    public var since: Int64
    public var limit: Int
    /// The kinds besides expenses the connection serves (from its `hello`, Protocol.md §10): not a wire member.
    public var kinds: Set<RecordKind>

    public init(since: Int64 = 0, limit: Int = 1000, kinds: Set<RecordKind> = []) {
        self.since = since
        self.limit = limit
        self.kinds = kinds
    }
}

/// `pull` result: the latest state of each record changed after `since`, in `seq` order, tombstones included.
public struct PullResult: Hashable, Sendable {
    public var changes: [Record]
    /// The budgets, rules and settings changed, for a connection that asked for them (Protocol.md §10); on
    /// the wire they are in `changes`, merged with the expenses in `seq` order.
    public var dataChanges: [DataRecord]
    /// The seq of the last change returned when `more`, else the ledger's head.
    public var cursor: Int64
    public var more: Bool

    public init(changes: [Record], dataChanges: [DataRecord] = [], cursor: Int64, more: Bool) {
        self.changes = changes
        self.dataChanges = dataChanges
        self.cursor = cursor
        self.more = more
    }
}

/// `summary` result: computed by the daemon from its own records.
public struct SummaryResult: Hashable, Sendable {
    public var summary: Summary
    public var cursor: Int64

    public init(summary: Summary, cursor: Int64) {
        self.summary = summary
        self.cursor = cursor
    }
}

/// The version of the protocol this code speaks.
public enum ProtocolVersion {
    public static let current: Int64 = 1
}
