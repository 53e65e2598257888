import ExpenseProtocol

extension MutationRejection {
    /// The reason of a change the client does not send because its push line alone would pass the daemon's
    /// line limit (`hello`'s `maxLine`). Given by the client, never by the daemon; no mutationId is spent on it.
    package static let tooLargeReason = "too_large"

    /// The local rejection of a change whose push line would take `bytes` against the daemon's limit of `limit`.
    package static func tooLarge(bytes: Int, limit: Int) -> MutationRejection {
        MutationRejection(reason: tooLargeReason, field: nil,
                          message: "this change needs a push line of \(bytes) bytes, more than the daemon's line limit of "
                              + "\(limit) bytes (expensed --max-line); it is kept here, unsent: shorten it with "
                              + "`expense edit`, or raise the daemon's --max-line, then sync")
    }

    /// Whether this is the client's own ``tooLarge(bytes:limit:)`` rejection (sent again once it fits).
    package var isTooLarge: Bool { reason == Self.tooLargeReason }
}
