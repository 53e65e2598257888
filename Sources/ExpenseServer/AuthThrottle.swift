import Foundation
import Synchronization

/// Slows down token guessing per peer address.
///
/// The first ``ServerConfiguration/authFreeFailures`` failed `hello`s from an address (within 10 minutes)
/// are answered at once. After that, every `hello` from that address — good or bad token, on any number of
/// parallel connections — is evaluated only at its turn, one per ``ServerConfiguration/authPenaltyInterval``
/// (default: one attempt per second per address, 3,600 an hour against a 256-bit token). An attempt whose
/// turn is more than 30 s away is refused at once without looking at the token. The record of an address
/// is forgotten 10 minutes after its last failure.
final class AuthThrottle: Sendable {
    /// When an attempt may be evaluated.
    enum Decision: Equatable {
        /// Evaluate after waiting this long (zero: now).
        case evaluate(after: Duration)
        /// Too many attempts queued: refuse without evaluating.
        case refuse
    }

    private struct Peer {
        var failures = 0
        var lastFailure: ContinuousClock.Instant
        var nextSlot: ContinuousClock.Instant
    }

    private static let forgetAfter: Duration = .seconds(600)
    private static let maximumWait: Duration = .seconds(30)
    private static let maximumPeers = 10_000

    private let freeFailures: Int
    private let interval: Duration
    private let peers = Mutex<[String: Peer]>([:])

    init(freeFailures: Int, interval: Duration) {
        self.freeFailures = freeFailures
        self.interval = interval
    }

    /// Reserves a turn for an attempt from `peer`.
    func admit(_ peer: String, now: ContinuousClock.Instant = .now) -> Decision {
        peers.withLock { peers in
            guard var record = peers[peer] else { return .evaluate(after: .zero) }
            if now - record.lastFailure > Self.forgetAfter {
                peers[peer] = nil
                return .evaluate(after: .zero)
            }
            guard record.failures >= freeFailures else { return .evaluate(after: .zero) }
            let slot = max(now, record.nextSlot)
            let wait = slot - now
            guard wait <= Self.maximumWait else { return .refuse }
            record.nextSlot = slot + interval
            peers[peer] = record
            return .evaluate(after: wait)
        }
    }

    /// Records a failed attempt from `peer`.
    func recordFailure(_ peer: String, now: ContinuousClock.Instant = .now) {
        peers.withLock { peers in
            if peers.count >= Self.maximumPeers, peers[peer] == nil {
                peers = peers.filter { now - $0.value.lastFailure <= Self.forgetAfter }
                if peers.count >= Self.maximumPeers { peers.removeAll() }
            }
            var record = peers[peer] ?? Peer(lastFailure: now, nextSlot: now)
            record.failures += 1
            record.lastFailure = now
            peers[peer] = record
        }
    }
}
