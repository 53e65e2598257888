/// One round of the load generator: bytes to send, and what the answer must contain.
struct Round {
    /// The request bytes (one or more requests, each ending in `\n`).
    var bytes: [UInt8]
    /// How many response lines to wait for.
    var lines: Int
    /// How many requests (or mutations) the round counts for in a rate.
    var operations: Int
    /// How many times ``LoadPlan/expect`` must occur in the answer.
    var expectedMatches: Int
}

/// Produces the rounds of one connection. Owned by the load loop that drives that connection.
protocol RoundSource {
    /// The next round, or `nil` when this connection has no more work (count-bounded plans).
    mutating func next() -> Round?
}

/// The same request bytes, `depth` times per round, forever: ping for expensed and Redis alike.
struct FixedRoundSource: RoundSource {
    private let round: Round

    /// - Parameters:
    ///   - request: one request, ending in `\n`.
    ///   - depth: requests per round (1 = one in flight; 16 = pipelined 16 deep).
    init(request: [UInt8], depth: Int) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(request.count * depth)
        for _ in 0..<depth { bytes += request }
        round = Round(bytes: bytes, lines: depth, operations: depth, expectedMatches: depth)
    }

    mutating func next() -> Round? { round }
}

/// `push` rounds of `mutationsPerPush` fresh puts with consecutive mutationIds, for one clientId.
struct PushRoundSource: RoundSource {
    private var generator: MutationGenerator
    private let mutationsPerPush: Int
    private var remainingPushes: Int?
    private var nextMutationId: Int
    private var requestId = 1

    /// - Parameters:
    ///   - lastMutationId: the `lastMutationId` that `hello` returned for this clientId.
    ///   - pushes: how many pushes to send, or `nil` for as many as the time window allows.
    init(mutationsPerPush: Int, lastMutationId: Int, pushes: Int?, seed: UInt64) {
        generator = MutationGenerator(seed: seed)
        self.mutationsPerPush = mutationsPerPush
        remainingPushes = pushes
        nextMutationId = lastMutationId + 1
    }

    mutating func next() -> Round? {
        if let remaining = remainingPushes {
            guard remaining > 0 else { return nil }
            remainingPushes = remaining - 1
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + mutationsPerPush * 200)
        bytes += Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        MutationGenerator.appendDecimal(requestId, to: &bytes)
        bytes += Array(#","method":"push","params":{"mutations":["#.utf8)
        for index in 0..<mutationsPerPush {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            generator.appendPut(mutationId: nextMutationId, to: &bytes)
            nextMutationId += 1
        }
        bytes += Array("]}}\n".utf8)
        requestId += 1
        return Round(bytes: bytes, lines: 1, operations: mutationsPerPush, expectedMatches: mutationsPerPush)
    }
}

/// No rounds at all: the source of connections that do something else (handshake churn).
struct NoRounds: RoundSource {
    mutating func next() -> Round? { nil }
}
