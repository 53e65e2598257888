/// Redis doing a single-mutation push's work, the equal-work peer of `single_push_per_s`: one Redis function
/// (loaded once with `FUNCTION LOAD`, Redis ≥ 7.0; the kit installs Debian 12's 7.0) called with `FCALL` per
/// mutation, on the kit's Redis with `appendfsync always`, so every answer waits for its effects to be on disk as a
/// push's `applied` does.
///
/// Per call, what a push's group commit does for one created expense: check the record's version (`HGET`; a
/// fresh id has none, so base version 0 passes), write the record (`HSET`), append its history entry, the same
/// `changes` JSON our stores keep (`XADD` to the ledger's stream), add it to the day's and the month's totals of
/// its category and currency, sum and count (`HINCRBY` × 4), and record the client's outcome of its mutationId
/// (`SET`). Redis replicates a function's effects, so each call is one `MULTI … EXEC` in the append-only file.
enum RedisPushWork {
    static let library = "expensebench"
    static let function = "push_work"

    /// The library's source: Lua, as `FUNCTION LOAD` takes it.
    static let source = """
        #!lua name=\(library)
        -- KEYS: the record, the ledger's history stream, the day's totals, the month's totals, the client's outcome.
        -- ARGV: base version, id, amount, currency, category, day, note, changes (JSON), client, mutation id.
        redis.register_function('\(function)', function(keys, args)
          local stored = redis.call('HGET', keys[1], 'version')
          if (stored or '0') ~= args[1] then
            return redis.error_reply('CONFLICT the record is at version ' .. tostring(stored))
          end
          local version = tonumber(args[1]) + 1
          redis.call('HSET', keys[1], 'id', args[2], 'version', version, 'deleted', 0, 'amount', args[3],
                     'currency', args[4], 'category', args[5], 'day', args[6], 'note', args[7])
          redis.call('XADD', keys[2], '*', 'id', args[2], 'version', version, 'action', 'create',
                     'changes', args[8], 'client', args[9])
          local cell = args[5] .. ':' .. args[4]
          redis.call('HINCRBY', keys[3], cell .. ':amount', args[3])
          redis.call('HINCRBY', keys[3], cell .. ':count', 1)
          redis.call('HINCRBY', keys[4], cell .. ':amount', args[3])
          redis.call('HINCRBY', keys[4], cell .. ':count', 1)
          redis.call('SET', keys[5], args[10] .. ':applied:' .. version)
          return redis.status_reply('OK')
        end)
        """

    /// One command in RESP's array-of-bulk-strings form (what `redis-cli` sends; the inline form cannot carry
    /// JSON's quotes and spaces).
    static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            bytes += Array("$\(argument.count)\r\n".utf8) + argument + [13, 10]
        }
        return bytes
    }

    /// Loads (or replaces) the library on the Redis at `port`.
    /// - Throws: when Redis answers with an error (a Redis older than 7.0 has no `FUNCTION`).
    static func load(port: UInt16) throws(BenchError) {
        let connection = try TCPConnection(host: "127.0.0.1", port: port)
        try connection.send(command(["FUNCTION", "LOAD", "REPLACE", source].map { Array($0.utf8) }))
        let first = try connection.readLine()
        // A bulk string answer: `$N`, then the library's name.
        guard first.first == UInt8(ascii: "$") else {
            throw .unexpectedResponse("FUNCTION LOAD: \(BenchError.excerpt(first))")
        }
        _ = try connection.readLine()
    }

    /// The database the calls write to: one of Redis's numbered databases that the kit's own runs leave alone,
    /// so that emptying it afterwards (``cleanUp(port:)``) touches nothing else.
    static let database = "9"

    /// Selects ``database`` on `connection` (the load plan's handshake, before the clock starts).
    static func select(_ connection: TCPConnection) throws(BenchError) {
        try connection.send(command([Array("SELECT".utf8), Array(database.utf8)]))
        let answer = try connection.readLine()
        guard answer.starts(with: Array("+OK".utf8)) else { throw .unexpectedResponse("SELECT: \(BenchError.excerpt(answer))") }
    }

    /// Empties ``database`` and unloads the library after the measurement: several hundred thousand records,
    /// streams and totals would otherwise stay in the server's append-only file.
    static func cleanUp(port: UInt16) throws(BenchError) {
        let connection = try TCPConnection(host: "127.0.0.1", port: port)
        try select(connection)
        for words in [["FLUSHDB"], ["FUNCTION", "DELETE", library]] {
            try connection.send(command(words.map { Array($0.utf8) }))
            let answer = try connection.readLine()
            guard answer.starts(with: Array("+OK".utf8)) else {
                throw .unexpectedResponse("\(words.joined(separator: " ")): \(BenchError.excerpt(answer))")
            }
        }
    }

    /// `FCALL`s of one connection (its own client key), each creating a new record with a fresh id.
    struct Source: RoundSource {
        private var generator: MutationGenerator
        private let client: [UInt8]
        private var mutationId = 0

        init(connection index: Int, seed: UInt64) {
            generator = MutationGenerator(seed: seed)
            client = Array("client-\(index)".utf8)
        }

        mutating func next() -> Round? {
            let create = generator.nextCreate()
            mutationId += 1
            let day = Array(String(create.day).utf8), month = Array(String(create.month).utf8)
            let keys: [[UInt8]] = [Array("record:".utf8) + create.id, Array("history".utf8), Array("day:".utf8) + day,
                                   Array("month:".utf8) + month, Array("outcome:".utf8) + client]
            let arguments: [[UInt8]] = [Array("0".utf8), create.id, Array(String(create.amount).utf8), Array("USD".utf8),
                                        Array(create.category.utf8), day, Array("bench".utf8), create.changesJSON, client,
                                        Array(String(mutationId).utf8)]
            let bytes = RedisPushWork.command([Array("FCALL".utf8), Array(RedisPushWork.function.utf8), Array("\(keys.count)".utf8)]
                                              + keys + arguments)
            return Round(bytes: bytes, lines: 1, operations: 1, expectedMatches: 1)
        }
    }
}
