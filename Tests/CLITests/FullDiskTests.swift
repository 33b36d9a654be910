import Foundation
import Testing
import TestSupport

/// An output that runs out of space mid-run: one line, exit 1, nothing left behind, and no hang
/// (the encoding thread used to wait forever for a stop it never got after a failed write).
@Suite struct FullDiskTests {
    /// Runs a system command; its exit status (-1 when it cannot start).
    static func system(_ path: String, _ args: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// A 1 MiB tmpfs mounted for the test (root only; the test says why it skips otherwise).
    static func tinyDisk() -> URL? {
        let dir = CLI.tempDir().appendingPathComponent("tiny")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        guard getuid() == 0, system("/bin/mount", ["-t", "tmpfs", "-o", "size=1M", "tmpfs", dir.path]) == 0 else { return nil }
        return dir
    }

    @Test(arguments: [["play", "--fast"], ["stitch", "--smart", "off"]])
    func aFullDiskIsOneLineAndLeavesNothing(_ command: [String]) async throws {
        guard let disk = Self.tinyDisk() else {
            print("skipped: mounting a small tmpfs needs root (a full disk cannot be simulated otherwise)")
            return
        }
        defer { _ = Self.system("/bin/umount", [disk.path]) }
        let out = disk.appendingPathComponent("o.nut").path
        let args = [command[0], TestMedia.Sample.content.url.path, "--ads", TestMedia.url("demo-vmap.xml").path, "-o", out,
                    "--format", "nut", "-q"] + command.dropFirst()
        let r = try await offPool { () -> (Int32, String, Bool) in
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = args
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(60)
            while p.isRunning, Date() < deadline { usleep(50_000) }
            let hung = p.isRunning
            if hung { p.terminate() }
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), hung)
        }
        #expect(!r.2, "\(command[0]) hung on a full disk")
        #expect(r.0 == 1, "\(r.1)")
        #expect(r.1.contains("No space left on device") && r.1.split(separator: "\n").count == 1, "\(r.1)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path).isEmpty, "nothing left on the disk")
    }
}
