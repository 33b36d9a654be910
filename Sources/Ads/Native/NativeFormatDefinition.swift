// A publisher's custom native format: its id and the names of its assets, mapped to OpenRTB ids.
import Foundation

/// A custom native format as the publisher defines it once (Ad Manager's "native format"): the
/// format id the app asks for and each asset's name (the key the app reads it by) mapped to the
/// OpenRTB asset id the response uses. Loaded from JSON:
///
/// ```json
/// {"formatID": "10063170", "name": "Simple",
///  "assets": [{"name": "Headline", "id": 1, "type": "text"},
///             {"name": "MainImage", "id": 2, "type": "image"},
///             {"name": "Caption", "id": 3, "type": "text"}]}
/// ```
/// Other keys (a rendering `template`, a `duration`) are read by the layers that use them.
public struct NativeFormatDefinition: Sendable, Hashable {
    /// What an asset of the format holds.
    public enum AssetType: String, Sendable, Hashable, CaseIterable {
        /// A title or data asset: a string.
        case text
        /// An image asset, fetched and decoded.
        case image
        /// A video asset: VAST, fetched and played like ad media.
        case video
    }
    /// One named asset.
    public struct Asset: Sendable, Hashable {
        /// The key the app reads it by (`"Headline"`).
        public var name: String
        /// The OpenRTB asset id in responses.
        public var id: Int
        /// What it holds.
        public var type: AssetType
        /// An asset.
        public init(name: String, id: Int, type: AssetType) { self.name = name; self.id = id; self.type = type }
    }
    /// The format id (Ad Manager's, e.g. "10063170").
    public var formatID: String
    /// A name for people.
    public var name: String?
    /// The assets, in definition order.
    public var assets: [Asset]

    /// A format.
    public init(formatID: String, name: String? = nil, assets: [Asset]) {
        self.formatID = formatID; self.name = name; self.assets = assets
    }

    /// The guide's test format: 10063170 with Headline (text), MainImage (image), Caption (text)
    /// as asset ids 1, 2 and 3.
    public static let guideSample = NativeFormatDefinition(formatID: "10063170", name: "Simple", assets: [
        Asset(name: "Headline", id: 1, type: .text), Asset(name: "MainImage", id: 2, type: .image), Asset(name: "Caption", id: 3, type: .text),
    ])

    /// The asset named `key`.
    public func asset(named key: String) -> Asset? { assets.first { $0.name == key } }

    /// Reads a definition from JSON (at most 256 KiB); one-line errors.
    public static func parse(_ data: Data) -> Result<NativeFormatDefinition, NativeResponseError> {
        guard data.count <= 256 << 10 else { return .failure(NativeResponseError("native format larger than 256 KiB")) }
        guard let root = try? JSONSerialization.jsonObject(with: data), let o = root as? [String: Any] else {
            return .failure(NativeResponseError("native format is not a JSON object"))
        }
        let formatID: String
        if let s = o["formatID"] as? String, !s.isEmpty, !(o["formatID"] is NSNumber) { formatID = s }
        else if let n = o["formatID"] as? NSNumber, !(o["formatID"] is String) { formatID = "\(n.int64Value)" }
        else { return .failure(NativeResponseError("native format: formatID must be a non-empty string")) }
        guard let list = o["assets"] as? [Any], !list.isEmpty, list.count <= 64 else {
            return .failure(NativeResponseError("native format \(formatID): assets must be an array of 1 to 64 objects"))
        }
        var assets: [Asset] = []
        for (i, item) in list.enumerated() {
            guard let a = item as? [String: Any], let name = a["name"] as? String, !name.isEmpty, name.count <= 100,
                  let idNumber = a["id"] as? NSNumber, !(a["id"] is String), let id = Int(exactly: idNumber.doubleValue) else {
                return .failure(NativeResponseError("native format \(formatID): assets[\(i)] needs a name (string) and an id (integer)"))
            }
            let typeName = (a["type"] as? String) ?? "text"
            guard let type = AssetType(rawValue: typeName) else {
                return .failure(NativeResponseError("native format \(formatID): assets[\(i)].type must be text, image or video, not '\(typeName)'"))
            }
            if assets.contains(where: { $0.name == name || $0.id == id }) {
                return .failure(NativeResponseError("native format \(formatID): asset name '\(name)' or id \(id) is used twice"))
            }
            assets.append(Asset(name: name, id: id, type: type))
        }
        return .success(NativeFormatDefinition(formatID: formatID, name: o["name"] as? String, assets: assets))
    }
}
