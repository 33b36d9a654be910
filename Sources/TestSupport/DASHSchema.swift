import Foundation

/// MPDs as the DASH schema reads them: `Tests/Schemas/DASH-MPD.xsd` (ISO/IEC 23009-1's schema)
/// through PyPI's `xmlschema` in the virtual environment `make setup` makes at `.build/pyenv`,
/// the XLink schema it imports from `xmlschema`'s own copy (this machine reaches no w3.org).
public enum DASHSchema {
    /// Every schema violation in the MPD at `url` (empty: valid).
    public static func problems(_ url: URL) throws -> [String] {
        let python = TestMedia.packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw VerifierError.toolNotFound("\(python) (xmlschema; run `make setup`)")
        }
        let schema = TestMedia.packageRoot.appendingPathComponent("Tests/Schemas/DASH-MPD.xsd").path
        let program = """
            import json, os, sys, xmlschema
            xlink = os.path.join(os.path.dirname(xmlschema.__file__), "schemas/XLINK/xlink.xsd")
            schema = xmlschema.XMLSchema(sys.argv[1], locations={"http://www.w3.org/1999/xlink": xlink})
            print(json.dumps([str(e.reason) + " at " + str(e.path) for e in schema.iter_errors(sys.argv[2])]))
            """
        let out = try Tools.checked(Tools.run(python, ["-c", program, schema, url.path]))
        guard let list = try JSONSerialization.jsonObject(with: out.stdout) as? [String] else {
            throw VerifierError.malformedOutput("xmlschema on \(url.path): \(String(decoding: out.stdout, as: UTF8.self))")
        }
        return list
    }
}
