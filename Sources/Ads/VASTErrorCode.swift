// VAST 3.0–4.3 error codes plus VMAP 1.0 codes: what goes into `[ERRORCODE]`.

/// A VAST (100–902) or VMAP (1000–1008) error code, as substituted into `[ERRORCODE]`.
public struct VASTErrorCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: Int

    /// Wraps a numeric code (any value: ad servers define custom ones).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 100: XML parsing error.
    public static let xmlParsing = VASTErrorCode(rawValue: 100)
    /// 101: VAST schema validation error.
    public static let schemaValidation = VASTErrorCode(rawValue: 101)
    /// 102: VAST version of response not supported.
    public static let unsupportedVersion = VASTErrorCode(rawValue: 102)
    /// 200: trafficking error; the player received an ad type it did not expect or cannot play.
    public static let trafficking = VASTErrorCode(rawValue: 200)
    /// 201: expecting different linearity.
    public static let unexpectedLinearity = VASTErrorCode(rawValue: 201)
    /// 202: expecting different duration.
    public static let unexpectedDuration = VASTErrorCode(rawValue: 202)
    /// 203: expecting different size.
    public static let unexpectedSize = VASTErrorCode(rawValue: 203)
    /// 204: ad category required but not provided.
    public static let categoryRequired = VASTErrorCode(rawValue: 204)
    /// 205: InLine Category violates a Wrapper's BlockedAdCategories.
    public static let blockedCategory = VASTErrorCode(rawValue: 205)
    /// 206: ad break shortened; ad not served.
    public static let breakShortened = VASTErrorCode(rawValue: 206)
    /// 300: general Wrapper error.
    public static let wrapperGeneral = VASTErrorCode(rawValue: 300)
    /// 301: timeout or failure of the VAST URI of a Wrapper.
    public static let wrapperTimeout = VASTErrorCode(rawValue: 301)
    /// 302: Wrapper limit reached (or a wrapper loop).
    public static let wrapperLimit = VASTErrorCode(rawValue: 302)
    /// 303: no VAST response after one or more Wrappers (also: a response with no ads).
    public static let noAdsAfterWrapper = VASTErrorCode(rawValue: 303)
    /// 304: InLine ad unit failed to display in time.
    public static let inlineDisplayTimeout = VASTErrorCode(rawValue: 304)
    /// 400: general Linear error.
    public static let linearGeneral = VASTErrorCode(rawValue: 400)
    /// 401: MediaFile not found.
    public static let mediaFileNotFound = VASTErrorCode(rawValue: 401)
    /// 402: MediaFile URI timeout.
    public static let mediaFileTimeout = VASTErrorCode(rawValue: 402)
    /// 403: no supported MediaFile.
    public static let noSupportedMediaFile = VASTErrorCode(rawValue: 403)
    /// 405: problem displaying a MediaFile.
    public static let mediaFileDisplay = VASTErrorCode(rawValue: 405)
    /// 406: Mezzanine required but not provided.
    public static let mezzanineRequired = VASTErrorCode(rawValue: 406)
    /// 407: Mezzanine being downloaded for the first time.
    public static let mezzanineDownloading = VASTErrorCode(rawValue: 407)
    /// 408: conditional ad rejected.
    public static let conditionalAdRejected = VASTErrorCode(rawValue: 408)
    /// 409: InteractiveCreativeFile not executed.
    public static let interactiveNotExecuted = VASTErrorCode(rawValue: 409)
    /// 410: verification unit not executed.
    public static let verificationNotExecuted = VASTErrorCode(rawValue: 410)
    /// 411: Mezzanine did not meet the required spec.
    public static let mezzanineBelowSpec = VASTErrorCode(rawValue: 411)
    /// 500: general NonLinearAds error.
    public static let nonLinearGeneral = VASTErrorCode(rawValue: 500)
    /// 600: general CompanionAds error.
    public static let companionGeneral = VASTErrorCode(rawValue: 600)
    /// 602: unable to display a required Companion.
    public static let companionRequired = VASTErrorCode(rawValue: 602)
    /// 900: undefined error.
    public static let undefined = VASTErrorCode(rawValue: 900)
    /// 901: general VPAID error.
    public static let vpaid = VASTErrorCode(rawValue: 901)
    /// 902: general InteractiveCreativeFile error.
    public static let interactiveGeneral = VASTErrorCode(rawValue: 902)
    /// 1000: VMAP schema error.
    public static let vmapSchema = VASTErrorCode(rawValue: 1000)
    /// 1001: VMAP version not supported.
    public static let vmapVersion = VASTErrorCode(rawValue: 1001)
    /// 1002: VMAP parsing error.
    public static let vmapParsing = VASTErrorCode(rawValue: 1002)
    /// 1003: AdBreak type not supported.
    public static let vmapBreakType = VASTErrorCode(rawValue: 1003)
    /// 1004: general ad response document error.
    public static let vmapAdResponse = VASTErrorCode(rawValue: 1004)
    /// 1005: ad response template type not supported.
    public static let vmapTemplateType = VASTErrorCode(rawValue: 1005)
    /// 1006: ad response document extraction or parsing error.
    public static let vmapExtraction = VASTErrorCode(rawValue: 1006)
    /// 1007: ad response document retrieval timeout.
    public static let vmapRetrievalTimeout = VASTErrorCode(rawValue: 1007)
    /// 1008: ad response document retrieval error.
    public static let vmapRetrieval = VASTErrorCode(rawValue: 1008)

    /// The spec's one-line meaning of the code.
    public var meaning: String {
        switch rawValue {
        case 100: "XML parsing error"
        case 101: "VAST schema validation error"
        case 102: "VAST version of response not supported"
        case 200: "trafficking error: unexpected or unplayable ad type"
        case 201: "expecting different linearity"
        case 202: "expecting different duration"
        case 203: "expecting different size"
        case 204: "ad category required but not provided"
        case 205: "InLine category violates wrapper BlockedAdCategories"
        case 206: "ad break shortened; ad not served"
        case 300: "general wrapper error"
        case 301: "timeout or failure of wrapper VAST URI"
        case 302: "wrapper limit reached"
        case 303: "no VAST response after one or more wrappers"
        case 304: "InLine ad unit failed to display in time"
        case 400: "general linear error"
        case 401: "media file not found"
        case 402: "media file timeout"
        case 403: "no supported media file"
        case 405: "problem displaying media file"
        case 406: "mezzanine required but not provided"
        case 407: "mezzanine being downloaded for the first time"
        case 408: "conditional ad rejected"
        case 409: "interactive creative file not executed"
        case 410: "verification unit not executed"
        case 411: "mezzanine did not meet the required spec"
        case 500: "general non-linear ads error"
        case 501: "non-linear ad dimensions do not fit"
        case 502: "unable to fetch non-linear resource"
        case 503: "no supported non-linear resource"
        case 600: "general companion ads error"
        case 601: "companion dimensions do not fit"
        case 602: "unable to display required companion"
        case 603: "unable to fetch companion resource"
        case 604: "no supported companion resource"
        case 900: "undefined error"
        case 901: "general VPAID error"
        case 902: "general interactive creative file error"
        case 1000: "VMAP schema error"
        case 1001: "VMAP version not supported"
        case 1002: "VMAP parsing error"
        case 1003: "ad break type not supported"
        case 1004: "general ad response document error"
        case 1005: "ad response template type not supported"
        case 1006: "ad response document extraction or parsing error"
        case 1007: "ad response document retrieval timeout"
        case 1008: "ad response document retrieval error"
        default: "custom error code"
        }
    }

    /// The number, e.g. `303`.
    public var description: String { String(rawValue) }

    /// Orders codes by number.
    public static func < (lhs: VASTErrorCode, rhs: VASTErrorCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A problem found while parsing or resolving: a VAST/VMAP code, where it happened and whom to tell.
public struct AdIssue: Sendable, Hashable, CustomStringConvertible {
    /// Whether the problem cost an ad (or a whole response) or was tolerated.
    public enum Severity: String, Sendable, Hashable {
        /// Something was not served or could not be used.
        case error
        /// Tolerated junk (e.g. an `undefined` Duration); nothing was lost.
        case warning
    }

    /// The VAST/VMAP code; warnings may have none.
    public var code: VASTErrorCode?
    /// One line for a person.
    public var message: String
    /// Error or warning.
    public var severity: Severity
    /// `Ad@id` of the ad concerned (the InLine's, else the wrapper's), when it concerns one.
    public var adId: String?
    /// The break concerned (VMAP `breakId`), when known.
    public var breakId: String?
    /// The Error URLs to request for this problem: the ad's own and every wrapper's above it.
    public var errorURLs: [URLTemplate]

    /// Makes an issue.
    public init(code: VASTErrorCode?, message: String, severity: Severity = .error, adId: String? = nil,
                breakId: String? = nil, errorURLs: [URLTemplate] = []) {
        self.code = code
        self.message = Printable.escaped(message)
        self.severity = severity
        self.adId = adId
        self.breakId = breakId
        self.errorURLs = errorURLs
    }

    /// `error 303 (ad 1234): message`.
    public var description: String {
        var s = severity.rawValue
        if let code { s += " \(code)" }
        if let adId { s += " (ad \(adId))" }
        return s + ": " + message
    }
}
