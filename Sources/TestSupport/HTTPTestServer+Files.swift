import Foundation

extension HTTPTestServer {
    /// A server answering `/NAME` with the file `folder/NAME` (a plain name: no sub-folder, no
    /// `..`), with the Content-Type a player expects of HLS (playlist, MPEG-TS, MP4), and 404 for
    /// anything else; e.g. an HLS package: `url("/index.m3u8")`.
    public static func serving(_ folder: URL) throws -> HTTPTestServer {
        let server = try HTTPTestServer()
        server.setHandler { request in
            let name = String(request.path.dropFirst())
            guard request.path.hasPrefix("/"), !name.isEmpty, !name.contains("/"), name != ".", name != "..",
                  let body = try? Data(contentsOf: folder.appendingPathComponent(name)) else { return nil }
            let types = ["m3u8": "application/vnd.apple.mpegurl", "ts": "video/mp2t", "mp4": "video/mp4", "m4s": "video/iso.segment"]
            let type = types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
            return Response(status: 200, headers: ["Content-Type": type, "Cache-Control": "no-cache"], body: body)
        }
        return server
    }
}
