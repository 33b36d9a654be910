import Foundation

/// The CPUs this process may run on: its affinity, as `taskset` or a container's cpuset limits it
/// (`Cpus_allowed_list` in /proc/self/status), at least 1. Foundation's processor counts give the
/// machine's CPUs whatever the affinity, which oversubscribes a pinned process.
package func allowedCPUCount() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
    // "0-1,4": ranges and single CPUs
    let count = line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").reduce(0) { n, part in
        let ends = part.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return n + (ends.count == 2 ? ends[1] - ends[0] + 1 : ends.count)
    }
    return max(1, count)
}
