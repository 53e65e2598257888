import ExpenseCore
import ExpenseProtocol
import FoundationEssentials

/// What the one `decide` (``MutationRules``, Protocol.md §7.1 steps 2–6) needs to know of a kind of record: how
/// it is stored, validated, compared and written. The steps themselves — not found, base version, deletes,
/// restores, creates of an id that exists, per-field conflicts, no-op edits, versions per field — are written
/// once, for every kind; a kind only describes itself.
///
/// A schema is made once per push and handed each mutation (never a copy of one per mutation: the create path of
/// a push is measured in instructions, `Benchmarks/push-profile`). Two descriptions exist: ``ExpenseSchema`` (typed expenses, with their prepared values and live totals) and
/// ``DataSchema`` (budgets, recurring rules and settings, whose fields ``LedgerDataValidator`` describes per
/// kind; a new kind of that shape needs no code here).
protocol RecordSchema {
    /// A record as the store keeps it (its wire record and the version at which each field last changed).
    associatedtype Stored
    /// A record's validated values.
    associatedtype Values
    /// What a conflict is decided on (money — an amount and its currency — is one).
    associatedtype Field: Hashable

    /// The record `id` of this schema's kind, tombstones included.
    func stored(_ id: UUID) throws -> Stored?
    /// Whether `mutation`'s id belongs to a record of another kind (then the mutation is `invalid_id`).
    func belongsToAnotherKind(_ mutation: Mutation, stored: Stored?) throws -> Bool
    /// The name of `mutation`'s kind, as a person reads it in `not_found`.
    func noun(_ mutation: Mutation) -> String

    func version(of stored: Stored) -> Int64
    func seq(of stored: Stored) -> Int64
    func isDeleted(_ stored: Stored) -> Bool
    /// The version at which `field` of `stored` last changed.
    func version(of field: Field, in stored: Stored) -> Int64

    /// A create's or restore's values: every field `mutation` sends, validated (`prepared`: worked out ahead).
    func completeValues(_ mutation: Mutation, prepared: PreparedPut?) -> Result<Values, MutationRejection>
    /// An edit's values: the fields sent over the stored ones, validated; no fields: a put without fields.
    func editedValues(_ mutation: Mutation, prepared: PreparedPut?, existing: Stored) -> Result<Values, MutationRejection>
    /// The conflict fields whose values differ between `existing` and `values` (text compared by its bytes).
    func changedFields(from existing: Stored, to values: Values) -> Set<Field>
    /// Whether `mutation` sends `field` (read only for an edit based on an older version than the record's).
    func sends(_ field: Field, _ mutation: Mutation, prepared: PreparedPut?) -> Bool
    /// The conflict field a rejection's `field` names; `nil` for none (the id, a name no field has).
    func field(named name: String) -> Field?
    /// Whether `mutation` sends `field` or another field of its conflict group (money: any of its fields).
    func sendsGroup(of field: Field, _ mutation: Mutation, prepared: PreparedPut?) -> Bool
    /// A reason `mutation`'s values cannot be stored beside the other records (an expense's live total past
    /// `Int64.max`, a member's name another member has): the rules across records, which a kind's own
    /// validation cannot see.
    func refusal(storing values: Values, of mutation: Mutation, replacing existing: Stored?) throws -> MutationRejection?

    /// An edit's `values` with its fields that merge instead of conflicting merged with the concurrent changes
    /// of `existing` (an expense's tags, a set: Protocol.md §7.4); called only for an edit of a live record based
    /// on an older version than the record's.
    /// - Returns: the values to store and the fields merged (which then never conflict), or `nil` when a field
    ///   that merges cannot be merged here: a conflict.
    func mergingConcurrentEdits(_ values: Values, of mutation: Mutation, prepared: PreparedPut?,
                                existing: Stored) throws -> (values: Values, merged: Set<Field>)?

    /// The conflict answer that shows `existing`.
    func conflict(_ existing: Stored) -> MutationStatus
    /// The record an applied answer carries: `stored` as the wire shows it (a pull page's shape).
    func answer(_ stored: Stored) -> AppliedRecord
    /// Writes `mutation`'s new record, at version 1 and `seq`, with its history entry.
    /// - Returns: the record as stored.
    func create(_ values: Values, of mutation: Mutation, prepared: PreparedPut?, seq: Int64) throws -> Stored
    /// Writes a new version of `old` (`values`) or its tombstone (`values` `nil`), with its history entry.
    /// - Returns: the record as stored.
    func write(_ values: Values?, of mutation: Mutation, prepared: PreparedPut?, version: Int64, seq: Int64,
               changed: Set<Field>, replacing old: Stored) throws -> Stored
}
