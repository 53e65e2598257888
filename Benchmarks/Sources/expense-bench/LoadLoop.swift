import CEpoll
import ExpenseTransport
import Glibc
import Synchronization

/// One connection of a ``LoadLoop``, and the round it has in flight.
final class LoopSlot {
    let index: Int
    var descriptor: Int32
    var tls: TLSSession?
    var source: any RoundSource
    /// Bumped whenever the descriptor is replaced (handshake churn): events of a closed socket are ignored.
    var generation: UInt32 = 0
    var round = Round(bytes: [], lines: 0, operations: 0, expectedMatches: 0)
    /// Plaintext bytes of ``round`` sent so far (plaintext connections; TLS encrypts the whole round at once).
    var sendOffset = 0
    /// `\n` bytes of the answer received so far.
    var seen = 0
    /// The answer so far; its capacity is kept from round to round.
    var response: [UInt8] = []
    var began: UInt64 = 0
    var writable = true
    /// A non-blocking `connect` has not completed yet (handshake churn).
    var connecting = false
    var finished = false

    init(index: Int, descriptor: Int32, tls: TLSSession?, source: any RoundSource) {
        self.index = index
        self.descriptor = descriptor
        self.tls = tls
        self.source = source
        response.reserveCapacity(4 * 1024)
    }
}

/// What one loop measured.
struct LoopReport: Sendable {
    var operations = 0
    /// Latency of each measured round (or handshake), in nanoseconds.
    var latencyNanoseconds: [UInt64] = []
    var error: String?
    /// Nanoseconds the loop's thread ran (``SchedStat``), set by the generator around the loop.
    var cpuNanoseconds: UInt64 = 0
}

/// One epoll loop of the load generator (the same for expensed, Redis and the pong server, so their figures compare): a
/// thread driving its share of the connections with non-blocking sockets, registered edge-triggered for input and
/// output once.
///
/// Per round it sends the round's bytes (encrypted first over TLS), counts `\n` in what arrives, appends the answer to
/// the connection's reused buffer, and once all lines are in checks the expected matches, records the latency in a
/// preallocated array and sends the next round. Nothing is allocated per request for fixed rounds (ping): the round's
/// bytes are shared, the buffers keep their capacity.
// @unchecked Sendable: a loop is made on the coordinating thread, handed to the one thread that runs it, and never
// touched by any other thread afterwards (the coordinator reads only the returned LoopReport).
final class LoadLoop: @unchecked Sendable {
    private let plan: LoadPlan
    private let slots: [LoopSlot]
    private let measureFrom: UInt64
    private let measureUntil: UInt64
    private let epollFD: Int32
    private var report = LoopReport()
    private var active = 0
    private static let scratchSize = 64 * 1024
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: scratchSize, alignment: 16)
    /// A round (or handshake) with no progress for this long fails the run.
    private static let roundTimeout: UInt64 = 60_000_000_000

    init(plan: LoadPlan, slots: [LoopSlot], measureFrom: Double, measureUntil: Double) { // not money: seconds
        self.plan = plan
        self.slots = slots
        self.measureFrom = UInt64(measureFrom * 1e9)
        self.measureUntil = measureUntil.isFinite ? UInt64(measureUntil * 1e9) : .max
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        report.latencyNanoseconds.reserveCapacity(1 << 18)
    }

    deinit {
        scratch.deallocate()
        for slot in slots where slot.descriptor >= 0 { close(slot.descriptor) }
        if epollFD >= 0 { close(epollFD) }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Runs until the window ends, every source is exhausted, a connection fails, or `abort` is set (by a loop that
    /// failed); returns what was measured.
    func run(abort: AbortFlag) -> LoopReport {
        guard epollFD >= 0 else { return LoopReport(error: "epoll_create1: \(String(cString: strerror(errno)))") }
        for (position, slot) in slots.enumerated() {
            if plan.work == .handshakes {
                reconnect(slot, position: position)
            } else {
                register(slot, position: position)
                startRound(slot)
            }
            if report.error != nil { break }
        }
        var events = [UInt32](repeating: 0, count: 256)
        var datas = [UInt64](repeating: 0, count: 256)
        var lastProgressCheck = Self.now()
        while report.error == nil, active > 0, !abort.isSet {
            let now = Self.now()
            if now >= measureUntil { break }
            let untilEnd = measureUntil == .max ? 100 : min(100, Int32((measureUntil - now) / 1_000_000) + 1)
            let count = cepoll_wait(epollFD, &events, &datas, Int32(events.count), untilEnd)
            if count < 0 {
                if errno == EINTR { continue }
                report.error = "epoll_wait: \(String(cString: strerror(errno)))"
                break
            }
            for event in 0..<Int(count) {
                let position = Int(datas[event] & 0xFFFF_FFFF)
                let slot = slots[position]
                guard UInt32(truncatingIfNeeded: datas[event] >> 32) == slot.generation, !slot.finished else { continue }
                handle(slot, position: position, events: events[event])
                if report.error != nil { break }
            }
            let after = Self.now()
            if after &- lastProgressCheck > 1_000_000_000 {
                lastProgressCheck = after
                for slot in slots where !slot.finished && after &- slot.began > Self.roundTimeout {
                    fail(slot, "no answer within \(Self.roundTimeout / 1_000_000_000) s after \(slot.seen) of "
                         + "\(slot.round.lines) lines")
                }
            }
        }
        if report.error != nil { abort.set() }
        return report
    }

    // MARK: Events

    private func register(_ slot: LoopSlot, position: Int) {
        let events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLET.rawValue
        let data = UInt64(slot.generation) << 32 | UInt64(position)
        guard cepoll_ctl(epollFD, EPOLL_CTL_ADD, slot.descriptor, events, data) == 0 else {
            fail(slot, "epoll_ctl: \(String(cString: strerror(errno)))")
            return
        }
        active += 1
    }

    private func handle(_ slot: LoopSlot, position: Int, events: UInt32) {
        if slot.connecting {
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            connected(slot, position: position)
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            slot.writable = true
            flush(slot)
        }
        if events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { readAll(slot, position: position) }
    }

    /// Reads until `EAGAIN` (edge-triggered), handing plaintext to ``consume(_:_:)``.
    private func readAll(_ slot: LoopSlot, position: Int) {
        while !slot.finished {
            let count = recv(slot.descriptor, scratch.baseAddress, scratch.count, 0)
            if count > 0 {
                let piece = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
                if let tls = slot.tls {
                    tls.advance(receiving: piece) { consume(slot, $0) }
                    if case .failed(let error) = tls.state { return fail(slot, "TLS: \(error)") }
                    if plan.work == .handshakes {
                        if tls.state == .established { return handshakeDone(slot, position: position) }
                        flush(slot)
                        continue
                    }
                    if tls.pendingCiphertext > 0 { flush(slot) }
                } else {
                    consume(slot, piece)
                }
                if slot.seen >= slot.round.lines && plan.work == .rounds {
                    finishRound(slot)
                    // The answer was all there was (the server says nothing unasked), so the socket is drained: skip
                    // the `recv` that would only say EAGAIN. New data raises a new edge.
                    if count < scratch.count { return }
                }
            } else if count == 0 {
                return fail(slot, "connection closed after \(slot.seen) of \(slot.round.lines) lines: "
                            + BenchError.excerpt(slot.response))
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else if errno != EINTR {
                return fail(slot, "recv: \(String(cString: strerror(errno)))")
            }
        }
    }

    private func consume(_ slot: LoopSlot, _ plaintext: UnsafeRawBufferPointer) {
        guard let base = plaintext.baseAddress, !plaintext.isEmpty else { return }
        slot.seen += TCPConnection.countNewlines(base, plaintext.count)
        slot.response.append(contentsOf: plaintext)
    }

    // MARK: Rounds

    private func startRound(_ slot: LoopSlot) {
        guard let round = slot.source.next() else {
            finish(slot)
            return
        }
        slot.round = round
        slot.sendOffset = 0
        slot.seen = 0
        slot.response.removeAll(keepingCapacity: true)
        slot.began = Self.now()
        if let tls = slot.tls {
            var offset = 0
            while offset < round.bytes.count {
                let taken = round.bytes.withUnsafeBytes { tls.encrypt(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
                guard taken > 0 else { return fail(slot, "TLS: the session took no plaintext (\(tls.state))") }
                offset += taken
            }
            slot.sendOffset = round.bytes.count
        }
        flush(slot)
    }

    private func finishRound(_ slot: LoopSlot) {
        let ended = Self.now()
        let matches = TCPConnection.occurrences(of: plan.expect, in: slot.response)
        guard matches == slot.round.expectedMatches, slot.seen == slot.round.lines else {
            return fail(slot, "expected \(slot.round.expectedMatches) × \(String(decoding: plan.expect, as: UTF8.self)) "
                        + "in \(slot.round.lines) lines, found \(matches) in \(slot.seen): \(BenchError.excerpt(slot.response))")
        }
        if ended >= measureFrom && ended <= measureUntil {
            report.operations += slot.round.operations
            report.latencyNanoseconds.append(ended &- slot.began)
        }
        startRound(slot)
    }

    /// Sends what is pending (ciphertext over TLS, else the round's plaintext) until done or `EAGAIN`.
    private func flush(_ slot: LoopSlot) {
        guard slot.writable, !slot.finished else { return }
        if let tls = slot.tls {
            while tls.pendingCiphertext > 0 {
                let sent = tls.withPendingCiphertext { bytes in
                    send(slot.descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
                }
                if sent > 0 {
                    tls.consumeCiphertext(sent)
                } else if !sendFailed(slot) {
                    return
                }
            }
            return
        }
        while slot.sendOffset < slot.round.bytes.count {
            let sent = slot.round.bytes.withUnsafeBytes { bytes in
                send(slot.descriptor, bytes.baseAddress.map { $0 + slot.sendOffset }, bytes.count - slot.sendOffset,
                     Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                slot.sendOffset += sent
            } else if !sendFailed(slot) {
                return
            }
        }
    }

    /// After a `send` that sent nothing: `true` to retry (`EINTR`); `false` to wait for `EPOLLOUT` or after a failure.
    private func sendFailed(_ slot: LoopSlot) -> Bool {
        if errno == EINTR { return true }
        if errno == EAGAIN || errno == EWOULDBLOCK {
            slot.writable = false
        } else {
            fail(slot, "send: \(String(cString: strerror(errno)))")
        }
        return false
    }

    // MARK: Handshake churn

    /// Opens a new non-blocking connection for `slot` (its previous one, if any, is closed).
    private func reconnect(_ slot: LoopSlot, position: Int) {
        if slot.descriptor >= 0 {
            close(slot.descriptor)
            slot.descriptor = -1
            active -= 1
        }
        slot.generation &+= 1
        slot.tls = nil
        slot.began = Self.now()
        do {
            slot.descriptor = try TCPConnection.openSocket(host: plan.host, port: plan.port, nonBlocking: true)
        } catch {
            return fail(slot, "\(error)")
        }
        slot.connecting = true
        slot.writable = false
        register(slot, position: position)
    }

    private func connected(_ slot: LoopSlot, position: Int) {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(slot.descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
        guard code == 0 else { return fail(slot, "connect: \(String(cString: strerror(code)))") }
        guard let context = plan.tls else { return fail(slot, "handshake churn needs a TLS context") }
        slot.connecting = false
        slot.writable = true
        do {
            let session = try TLSSession(context: context, serverName: plan.host)
            slot.tls = session
            session.advance { _ in }
        } catch {
            return fail(slot, "TLS: \(error)")
        }
        flush(slot)
        readAll(slot, position: position)
    }

    private func handshakeDone(_ slot: LoopSlot, position: Int) {
        let ended = Self.now()
        flush(slot)  // the client's Finished (TLS 1.3): the daemon completes its side of the handshake too
        if ended >= measureFrom && ended <= measureUntil {
            report.operations += 1
            report.latencyNanoseconds.append(ended &- slot.began)
        }
        reconnect(slot, position: position)
    }

    // MARK: Ends

    private func finish(_ slot: LoopSlot) {
        guard !slot.finished else { return }
        slot.finished = true
        active -= 1
    }

    private func fail(_ slot: LoopSlot, _ message: String) {
        if report.error == nil { report.error = "connection \(slot.index): \(message)" }
        finish(slot)
    }
}

/// Set by the first loop that fails, so the others stop too.
final class AbortFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
