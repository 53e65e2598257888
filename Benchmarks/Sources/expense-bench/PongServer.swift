import CEpoll
import Foundation
import Glibc
import ProcessSpawn

/// `expense-bench --pong-server`: the trivial server the generator's headroom is measured against (how fast the
/// generator goes when the server costs almost nothing). One epoll thread on a kernel-chosen loopback port; it answers
/// every `\n` it receives with one fixed line, the daemon's own `ping` answer on an empty ledger, and does nothing
/// else: no parsing, no `hello`. It prints `listening on 127.0.0.1:PORT` and runs until it is killed.
enum PongServer {
    static let answer = Array(#"{"jsonrpc":"2.0","id":1,"result":{"cursor":0}}"#.utf8) + [UInt8(ascii: "\n")]

    /// Never returns normally; returns an exit status when it cannot start.
    static func run() -> Int32 {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 4096) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard listener >= 0, bound, epollFD >= 0 else {
            progress("pong server: cannot listen: \(String(cString: strerror(errno)))")
            return 1
        }
        let line = Array("listening on 127.0.0.1:\(UInt16(bigEndian: address.sin_port))\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        _ = cepoll_ctl(epollFD, EPOLL_CTL_ADD, listener, EPOLLIN.rawValue, UInt64(listener))
        var unsent: [Int32: [UInt8]] = [:]
        var events = [UInt32](repeating: 0, count: 256)
        var datas = [UInt64](repeating: 0, count: 256)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        var output: [UInt8] = []
        output.reserveCapacity(64 * 1024)
        var turn: [(descriptor: Int32, answers: Int, open: Bool)] = []
        while true {
            let count = cepoll_wait(epollFD, &events, &datas, Int32(events.count), -1)
            for index in 0..<Int(max(count, 0)) {
                let descriptor = Int32(truncatingIfNeeded: datas[index])
                if descriptor == listener {
                    while case let client = cepoll_accept(listener), client >= 0 {
                        var one: Int32 = 1
                        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                        _ = cepoll_ctl(epollFD, EPOLL_CTL_ADD, client, EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue
                                       | EPOLLET.rawValue, UInt64(client))
                    }
                    continue
                }
                var answers = 0
                var open = true
                let hungUp = events[index] & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue) != 0
                while true {
                    let received = recv(descriptor, scratch.baseAddress, scratch.count, 0)
                    if received > 0 {
                        answers += scratch.baseAddress.map { TCPConnection.countNewlines($0, received) } ?? 0
                        // A short read emptied the queue (new data raises a new edge): no `recv` just to see
                        // EAGAIN, a call neither the daemon nor Redis makes, so the headroom figure is not charged
                        // it. Not so after a hang-up, whose edge may have come with this data: read on to the end
                        // of stream.
                        if received < scratch.count, !hungUp { break }
                    } else if received == 0 || (errno != EAGAIN && errno != EINTR) {
                        open = false
                        break
                    } else if errno == EAGAIN {
                        break
                    }
                }
                turn.append((descriptor, answers, open))
            }
            // The answers are written once every ready connection was read, as the daemon's loop and Redis write
            // theirs at the end of a turn: writing after each read, it answered fewer pipelined pings than the
            // daemon (1.69M against 1.80M a second, in one run) and was no ceiling for the generator.
            for (descriptor, answers, open) in turn {
                guard open else {
                    unsent[descriptor] = nil
                    close(descriptor)
                    continue
                }
                output.removeAll(keepingCapacity: true)
                if let left = unsent.removeValue(forKey: descriptor) { output = left }
                for _ in 0..<answers { output += answer }
                var offset = 0
                while offset < output.count {
                    let sent = output.withUnsafeBytes { send(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset,
                                                             Int32(MSG_NOSIGNAL)) }
                    if sent > 0 { offset += sent } else if errno != EINTR { break }
                }
                if offset < output.count { unsent[descriptor] = Array(output[offset...]) }
            }
            turn.removeAll(keepingCapacity: true)
        }
    }
}

/// The pong server as a child process of the bench (`/proc/self/exe --pong-server`), stopped with SIGKILL.
final class PongProcess {
    let child: ChildProcess
    let port: UInt16
    private let cleanup: Int

    init(log: String) throws(BenchError) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let child: ChildProcess, stdoutEnd: Int32?
        do {
            (child, stdoutEnd, _) = try ChildProcess.spawn(executable, ["--pong-server"], environment: cleanEnvironment([:]),
                                                           stdout: .pipe, stderr: .file(log))
        } catch {
            throw .child(error.description)
        }
        cleanup = BenchCleanup.add { child.send(SIGKILL) }
        guard let stdoutEnd, let line = ChildProcess.readLine(from: stdoutEnd, timeout: 30),
              line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":"),
              let port = UInt16(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) else {
            child.send(SIGKILL)
            _ = child.wait(timeout: 10)
            BenchCleanup.remove(cleanup)
            throw .child("the pong server did not say 'listening on HOST:PORT': \(DaemonProcess.tail(of: log))")
        }
        close(stdoutEnd)
        self.child = child
        self.port = port
    }

    func stop() {
        child.send(SIGKILL)
        _ = child.wait(timeout: 10)
        BenchCleanup.remove(cleanup)
    }
}
