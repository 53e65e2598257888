import ExpenseCore
import FoundationEssentials

/// What a mutation does.
public enum MutationType: String, Sendable, Hashable {
    case put
    case delete
}

/// A well-formed mutation from a `push`: its shape is right; its fields are not yet validated (the daemon
/// does that with ``ExpenseCore/ExpenseValidator``, never trusting the client).
public struct Mutation: Hashable, Sendable {
    /// Per client, from 1, consecutive.
    public var mutationId: Int64
    public var type: MutationType
    public var id: UUID
    /// The version the client last saw; 0 creates.
    public var baseVersion: Int64
    /// For `put` only: its fields as sent, or the mark that the daemon prepared it; `nil` for a delete.
    public var putFields: PutFields?
    /// The fields sent, exactly as they were on the wire, member by member; `nil` for a delete and for a
    /// prepared put.
    public var sentFields: MutationFields? {
        if case .sent(let fields)? = putFields { fields } else { nil }
    }
    /// ``sentFields`` as the object's dictionary.
    public var fields: [String: JSONValue]? {
        get { sentFields?.dictionary }
        set { putFields = newValue.map { .sent(MutationFields($0)) } }
    }
    /// What kind of record it changes (Protocol.md §10); a mutation with no `kind` member changes an expense.
    public var kind: RecordKind
    /// A create that is `applied` with no change when the id exists in any state (live, edited or deleted):
    /// how a recurring rule's occurrences are materialised (Protocol.md §10.4).
    public var ifAbsent: Bool

    public init(mutationId: Int64, type: MutationType, id: UUID, baseVersion: Int64, fields: [String: JSONValue]?,
                kind: RecordKind = .expense, ifAbsent: Bool = false) {
        self.mutationId = mutationId
        self.type = type
        self.id = id
        self.baseVersion = baseVersion
        self.putFields = fields.map { .sent(MutationFields($0)) }
        self.kind = kind
        self.ifAbsent = ifAbsent
    }

    /// A mutation whose fields are already read member by member (the daemon's push decode).
    public init(mutationId: Int64, type: MutationType, id: UUID, baseVersion: Int64, sentFields: MutationFields?,
                kind: RecordKind = .expense, ifAbsent: Bool = false) {
        self.mutationId = mutationId
        self.type = type
        self.id = id
        self.baseVersion = baseVersion
        self.putFields = sentFields.map(PutFields.sent)
        self.kind = kind
        self.ifAbsent = ifAbsent
    }
}

extension Mutation {
    /// This put as the daemon keeps it once its values are validated ahead: every member but its fields, which are
    /// left behind (``PutFields/prepared``) without being copied.
    public var prepared: Mutation {
        var bare = Mutation(mutationId: mutationId, type: type, id: id, baseVersion: baseVersion, sentFields: nil, kind: kind,
                            ifAbsent: ifAbsent)
        bare.putFields = .prepared
        return bare
    }
}

/// What a `put` carries.
public enum PutFields: Hashable, Sendable {
    /// The fields as they were on the wire.
    case sent(MutationFields)
    /// A put the daemon validated before deciding (it sent every field, or it creates): its values travel beside
    /// it (the server's prepared put), and its fields were left behind so that the ledger's thread neither copies
    /// nor frees them. Which fields it sent, all of them, is all that is left to know.
    case prepared
}

/// Why a mutation was rejected: a stable snake_case `reason` (`invalid_amount`, `invalid_mutation`,
/// `mutation_gap`, `unknown_field`, …), the field it concerns, and a sentence for a person.
public struct MutationRejection: Error, Hashable, Sendable {
    public var reason: String
    public var field: String?
    public var message: String

    public init(reason: String, field: String?, message: String) {
        self.reason = reason
        self.field = field
        self.message = message
    }

    /// The rejection for a core validation error, with the same code and field.
    /// A `put` without a `fields` object (`invalid_mutation`, field `fields`): what ``PushRequest`` answers, and
    /// what the daemon's rules answer should one ever reach them.
    public static let putWithoutFields = MutationRejection(reason: "invalid_mutation", field: "fields",
                                                           message: "a put needs a fields object")

    public init(_ error: ValidationError) {
        self.init(reason: error.code, field: error.field.rawValue, message: error.message)
    }
}

/// One entry of a push, as decoded: its `mutationId`, and either a well-formed mutation or the reason its
/// shape was refused (`invalid_mutation`, `invalid_id`). A malformed entry still consumes its id.
public struct PushItem: Hashable, Sendable {
    public var mutationId: Int64
    /// The mutation as its shape was decoded, or the reason its shape was refused.
    public var decoded: Result<Mutation, MutationRejection>

    public init(mutationId: Int64, decoded: Result<Mutation, MutationRejection>) {
        self.mutationId = mutationId
        self.decoded = decoded
    }
}

/// What became of one mutation.
public enum MutationStatus: Hashable, Sendable {
    /// Applied (or already true): the record's version and seq now.
    case applied(version: Int64, seq: Int64)
    /// At or below the client's last consumed id: not applied again. `original` is what the daemon decided
    /// when it consumed that id, while it still keeps it (Protocol.md §5.2, §7.6); `nil` outside that window.
    case duplicate(original: MutationOutcome?)
    /// Would overwrite a change the client has not seen: nothing of it applied; the record as it is now.
    case conflict(current: Record)
    /// ``conflict(current:)`` for a budget, a recurring rule or a setting (Protocol.md §10).
    case dataConflict(current: DataRecord)
    /// Refused; nothing of it applied.
    case rejected(MutationRejection)
}

extension MutationStatus {
    /// Whether this is a `duplicate` answer (with or without its original outcome).
    public var isDuplicate: Bool {
        if case .duplicate = self { true } else { false }
    }
}

/// What the daemon decided for a mutation when it consumed its id: what a `duplicate` answer repeats.
public enum MutationOutcome: Hashable, Sendable {
    /// Applied (or already true) at this version and seq.
    case applied(version: Int64, seq: Int64)
    /// A conflict; `current` is the record as it is when the duplicate is answered.
    case conflict(current: Record)
    /// ``conflict(current:)`` for a budget, a recurring rule or a setting.
    case dataConflict(current: DataRecord)
    /// Refused.
    case rejected(MutationRejection)

    /// The same decision as a push result's status.
    public var status: MutationStatus {
        switch self {
        case .applied(let version, let seq): .applied(version: version, seq: seq)
        case .conflict(let current): .conflict(current: current)
        case .dataConflict(let current): .dataConflict(current: current)
        case .rejected(let rejection): .rejected(rejection)
        }
    }
}

/// The result of one mutation of a push, in the order sent.
public struct MutationResult: Hashable, Sendable {
    public var mutationId: Int64
    public var status: MutationStatus
    /// With an `applied` status, the record as the daemon stored it (Protocol.md §5.2): the client keeps it as its
    /// server copy as it is. `nil` from a daemon that does not send it, and for every other status (a `duplicate`'s
    /// `original` included: the outcomes a daemon keeps hold no record).
    ///
    /// - Important: Set only beside ``MutationStatus/applied(version:seq:)``, at that version and seq; the writer
    ///   leaves it out of any other answer.
    public var record: AppliedRecord?

    /// A result; `record` only for an `applied` status, the record that status describes.
    public init(mutationId: Int64, status: MutationStatus, record: AppliedRecord? = nil) {
        self.mutationId = mutationId
        self.status = status
        self.record = record
        assert(record.map { record in status == .applied(version: record.version, seq: record.seq) } ?? true,
               "a record goes only with the applied status at its version and seq")
    }
}
