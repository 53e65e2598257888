import Foundation
import Glibc
@testable import ProcessSpawn
import TestSupport
import Testing

/// A child's peak memory as the bench reads it: `ru_maxrss` from `wait4` starts at the spawning process's own
/// resident size, so a small child of a large parent looks large; `VmHWM`, which ``PeakSampler`` reads, is the
/// child's own.
@Suite struct ChildPeakMemoryTests {
    @Test func aSmallChildOfALargeParentHasASmallOwnPeak() async throws {
        // The ballast would count in the resident growth other tests measure: they take turns.
        try await onOwnThread {
            try ResidentMemory.exclusively {
                // This process resident by at least 256 MiB more (every page touched) while the child is spawned.
                let size = 256 << 20
                let ballast = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 4096)
                defer { ballast.deallocate() }
                for offset in stride(from: 0, to: size, by: 4096) { ballast[offset] = 1 }
                // The shell waits in the FIFO's open until this test opens the other end: it is sampled while it runs.
                let directory = try TemporaryDirectory()
                let fifo = directory.path + "/go"
                #expect(mkfifo(fifo, 0o600) == 0)
                let (child, _, _) = try ChildProcess.spawn("/bin/sh", ["-c", "read line < \(fifo); exit 0"], environment: [:],
                                                           stdout: .discard, stderr: .discard)
                let sampler = PeakSampler(pid: child.pid, interval: .milliseconds(1))
                let writer = open(fifo, O_WRONLY | O_CLOEXEC)  // no child of another test may hold it open
                #expect(writer >= 0)
                close(writer)
                let own = try #require(sampler.stop(), "a reading of the running shell")
                let exit = child.wait(timeout: 60)
                #expect(exit.succeeded)
                #expect(exit.maxResidentKiB >= 256 << 10, "ru_maxrss counts the parent's pages: the reason for VmHWM")
                #expect(own > 0 && own < 64 << 10, "the shell's own peak, \(own) KiB")
                withExtendedLifetime(ballast) {}
            }
        }
    }
}
