import Ads
import Foundation
import Media

extension AdMediaCache {
    /// A cache in `directory` (created when missing) holding at most `maxBytes`, its entries
    /// checked by SHA-256 (libavutil's).
    public convenience init(directory: URL = AdMediaCache.defaultDirectory, maxBytes: Int64 = 2 << 30,
                            maxFileBytes: Int64 = 1 << 30) {
        self.init(directory: directory, maxBytes: maxBytes, maxFileBytes: maxFileBytes, sha256: {
            let hash = try ContentHash()
            return SHA256Stream(update: hash.update, finish: hash.finish)
        })
    }
}
