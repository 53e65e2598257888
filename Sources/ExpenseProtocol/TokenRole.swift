/// What a ledger token may do (Protocol.md §4, "Roles"), as `hello`'s result names it in `role`.
///
/// - `viewer`: `hello`, `pull`, `summary`, `watch`, `ping` and every later read method; a `push` is refused
///   as a whole with −32006 `forbidden`.
/// - `editor`: a viewer's rights and `push`.
/// - `owner`: an editor's rights and whatever owner-only method a later protocol adds (none yet).
public enum TokenRole: String, Sendable, Hashable, CaseIterable {
    case owner
    case editor
    case viewer

    /// Whether a token of this role may change the ledger (`push`).
    public var mayWrite: Bool { self != .viewer }
}
