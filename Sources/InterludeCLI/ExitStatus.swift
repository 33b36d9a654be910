// How a job's failure becomes the command's exit status.
import Interlude

extension JobFailure {
    /// 2 for a request that cannot be run as given (bad usage), 1 for a run that failed.
    var exitStatus: Int32 { kind == .usage ? 2 : 1 }
}
