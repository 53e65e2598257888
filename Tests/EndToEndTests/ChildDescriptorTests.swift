import Foundation
import Glibc
import ProcessSpawn
import TestSupport
import Testing

/// A child starts with standard input, output and error only: a descriptor some test of this process opened
/// without close-on-exec, in the instant of the spawn, stays out of it (a child holding it would keep a file's
/// space after its removal, or a pipe from ever reading end of file).
@Suite struct ChildDescriptorTests {
    @Test func aChildInheritsNoDescriptorBeyondItsStandardThree() async throws {
        try await onOwnThread {
            let directory = try TemporaryDirectory()
            let held = open(directory.path + "/held", O_WRONLY | O_CREAT, 0o600)  // no O_CLOEXEC, on purpose
            try #require(held >= 0)
            defer { close(held) }
            let listing = directory.path + "/fds"
            let (child, _, _) = try ChildProcess.spawn("/bin/sh", ["-c", "ls /proc/self/fd > \(listing)"], environment: [:],
                                                       stdout: .discard, stderr: .discard)
            #expect(child.wait(timeout: 60).succeeded)
            let descriptors = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
            // ls's own directory descriptor is the one above 2 it may show.
            #expect(!descriptors.contains(held), "the child holds descriptor \(held): \(descriptors)")
            #expect(descriptors.filter { $0 > 2 }.count <= 1, "\(descriptors)")
        }
    }
}

/// Once reaped, a child's number may be another process's: a late clean-up (a bench's signal handler, a deinit)
/// sends it nothing.
@Suite struct ChildSignalTests {
    @Test func aReapedChildIsSentNothing() async throws {
        try await onOwnThread {
            let (child, _, _) = try ChildProcess.spawn("/bin/sleep", ["600"], environment: [:], stdout: .discard, stderr: .discard)
            #expect(child.send(0), "a running child is signalled")
            let copy = child
            #expect(copy.send(SIGKILL))
            #expect(child.wait(timeout: 60).signal == SIGKILL)
            #expect(!child.send(SIGKILL), "reaped: nothing is sent")
            #expect(!copy.send(SIGKILL), "nor through a copy")
        }
    }
}
