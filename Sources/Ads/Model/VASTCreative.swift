// Creatives: Linear (media files, tracking, clicks, icons), NonLinear and Companion ads.
import Timing

/// `<Creative>`: one of Linear, NonLinearAds or CompanionAds, plus ids.
public struct VASTCreative: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `@adId` (also spelled `AdID`, `adID`).
    public var adId: String?
    /// `@sequence`: order within the ad, not a pod position.
    public var sequence: Int?
    /// `@apiFramework`.
    public var apiFramework: String?
    /// `<UniversalAdId>` values (4.0+; several since 4.2).
    public var universalAdIds: [UniversalAdId]
    /// `<CreativeExtensions>`.
    public var creativeExtensions: [VASTExtension]
    /// `<Linear>`.
    public var linear: Linear?
    /// `<NonLinearAds>`.
    public var nonLinearAds: NonLinearAds?
    /// `<CompanionAds>`.
    public var companionAds: CompanionAds?
}

/// `<UniversalAdId idRegistry>value</UniversalAdId>`.
public struct UniversalAdId: Sendable, Hashable {
    /// `@idRegistry` (`unknown` when none).
    public var registry: String
    /// The id (text; 4.0's `@idValue` when the text is empty).
    public var value: String

    /// Makes an id.
    public init(registry: String, value: String) {
        self.registry = registry
        self.value = value
    }
}

/// `<Linear>`: a video or audio ad played in the content's place.
public struct Linear: Sendable, Hashable {
    /// `<Duration>`, nil when missing or junk (`undefined`, empty): then the media decides.
    public var duration: MediaTime?
    /// The Duration text as written, for reports.
    public var rawDuration: String?
    /// `@skipoffset`; nil when not skippable.
    public var skipOffset: VASTOffset?
    /// `<MediaFile>` elements.
    public var mediaFiles: [MediaFile]
    /// `<Mezzanine>` elements (4.0+).
    public var mezzanines: [MediaFile]
    /// `<InteractiveCreativeFile>` elements (4.0+).
    public var interactiveCreativeFiles: [InteractiveCreativeFile]
    /// `<ClosedCaptionFile>` elements (4.1+).
    public var closedCaptionFiles: [ClosedCaptionFile]
    /// `<TrackingEvents>`.
    public var trackingEvents: [TrackingEvent]
    /// `<VideoClicks>`.
    public var videoClicks: VideoClicks
    /// `<Icons>`.
    public var icons: [Icon]
    /// `<AdParameters>` verbatim (IMA's trafficking parameters).
    public var adParameters: String?
}

/// A `<MediaFile>` or `<Mezzanine>` with every attribute the spec defines.
public struct MediaFile: Sendable, Hashable {
    /// The media URL.
    public var url: URLTemplate
    /// `@delivery`: `progressive` or `streaming` (lower-cased; nil when missing).
    public var delivery: String?
    /// `@type`: MIME type (lower-cased).
    public var type: String?
    /// `@width` in pixels.
    public var width: Int?
    /// `@height` in pixels.
    public var height: Int?
    /// `@codec` (RFC 6381 string or a plain name).
    public var codec: String?
    /// `@id`.
    public var id: String?
    /// `@bitrate` in kbit/s.
    public var bitrate: Int?
    /// `@minBitrate` in kbit/s.
    public var minBitrate: Int?
    /// `@maxBitrate` in kbit/s.
    public var maxBitrate: Int?
    /// `@scalable`.
    public var scalable: Bool?
    /// `@maintainAspectRatio`.
    public var maintainAspectRatio: Bool?
    /// `@apiFramework` (e.g. `VPAID`).
    public var apiFramework: String?
    /// `@fileSize` in bytes (4.1+).
    public var fileSize: Int?
    /// `@mediaType` (`2D`, `3D`, `360`; 4.1+).
    public var mediaType: String?
    /// True for a `<Mezzanine>`.
    public var isMezzanine: Bool

    /// Makes a media file; everything but the URL is optional.
    public init(url: URLTemplate, delivery: String? = "progressive", type: String? = nil, width: Int? = nil, height: Int? = nil,
                codec: String? = nil, id: String? = nil, bitrate: Int? = nil, minBitrate: Int? = nil, maxBitrate: Int? = nil,
                scalable: Bool? = nil, maintainAspectRatio: Bool? = nil, apiFramework: String? = nil, fileSize: Int? = nil,
                mediaType: String? = nil, isMezzanine: Bool = false) {
        self.url = url
        self.delivery = delivery
        self.type = type
        self.width = width
        self.height = height
        self.codec = codec
        self.id = id
        self.bitrate = bitrate
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
        self.scalable = scalable
        self.maintainAspectRatio = maintainAspectRatio
        self.apiFramework = apiFramework
        self.fileSize = fileSize
        self.mediaType = mediaType
        self.isMezzanine = isMezzanine
    }

    /// The bitrate to compare: `bitrate`, else `maxBitrate`, else `minBitrate`.
    public var effectiveBitrate: Int? { bitrate ?? maxBitrate ?? minBitrate }
}

/// `<InteractiveCreativeFile>`: SIMID/VPAID code, never spliced.
public struct InteractiveCreativeFile: Sendable, Hashable {
    /// URL (4.3: may be a `data:` URI).
    public var url: URLTemplate
    /// `@type`.
    public var type: String?
    /// `@apiFramework`.
    public var apiFramework: String?
    /// `@variableDuration`.
    public var variableDuration: Bool?
}

/// `<ClosedCaptionFile type language>`.
public struct ClosedCaptionFile: Sendable, Hashable {
    /// URL.
    public var url: URLTemplate
    /// `@type` (`text/vtt`, …).
    public var type: String?
    /// `@language`.
    public var language: String?
}

/// `<Tracking event offset>`: one beacon URL for a named event.
public struct TrackingEvent: Sendable, Hashable {
    /// The event name as written (`start`, `progress`, vendor names…).
    public var event: String
    /// `@offset`, for `progress` events.
    public var offset: VASTOffset?
    /// The beacon URL.
    public var url: URLTemplate

    /// Makes a tracking event.
    public init(event: String, offset: VASTOffset? = nil, url: URLTemplate) {
        self.event = event
        self.offset = offset
        self.url = url
    }
}

/// `<VideoClicks>`.
public struct VideoClicks: Sendable, Hashable {
    /// `<ClickThrough>`: the landing page.
    public var clickThrough: URLTemplate?
    /// `<ClickTracking>` beacons.
    public var clickTracking: [URLTemplate]
    /// `<CustomClick>` beacons.
    public var customClicks: [URLTemplate]

    /// Makes a VideoClicks value.
    public init(clickThrough: URLTemplate? = nil, clickTracking: [URLTemplate] = [], customClicks: [URLTemplate] = []) {
        self.clickThrough = clickThrough
        self.clickTracking = clickTracking
        self.customClicks = customClicks
    }
}

/// A creative resource: static image/script URL, iframe URL or inline HTML.
public enum CreativeResource: Sendable, Hashable {
    /// `<StaticResource creativeType>`.
    case staticResource(url: URLTemplate, creativeType: String?)
    /// `<IFrameResource>`.
    case iframe(URLTemplate)
    /// `<HTMLResource>`.
    case html(String)
}

/// `<Icon>` (e.g. AdChoices).
public struct Icon: Sendable, Hashable {
    /// `@program`, e.g. `AdChoices`.
    public var program: String?
    /// `@width`.
    public var width: Int?
    /// `@height`.
    public var height: Int?
    /// `@xPosition` (`left`, `right` or pixels).
    public var xPosition: String?
    /// `@yPosition` (`top`, `bottom` or pixels).
    public var yPosition: String?
    /// `@duration`.
    public var duration: MediaTime?
    /// `@offset`.
    public var offset: MediaTime?
    /// `@apiFramework`.
    public var apiFramework: String?
    /// `@pxratio`.
    public var pxratio: String?
    /// `@altText`.
    public var altText: String?
    /// `@hoverText`.
    public var hoverText: String?
    /// Resources.
    public var resources: [CreativeResource]
    /// `<IconClickThrough>`.
    public var clickThrough: URLTemplate?
    /// `<IconClickTracking>`.
    public var clickTracking: [URLTemplate]
    /// `<IconViewTracking>`.
    public var viewTracking: [URLTemplate]
}

/// `<NonLinearAds>`: overlays plus their tracking.
public struct NonLinearAds: Sendable, Hashable {
    /// `<NonLinear>` elements.
    public var nonLinears: [NonLinear]
    /// `<TrackingEvents>`.
    public var trackingEvents: [TrackingEvent]
}

/// `<NonLinear>`: an overlay.
public struct NonLinear: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `@width`.
    public var width: Int?
    /// `@height`.
    public var height: Int?
    /// `@minSuggestedDuration`.
    public var minSuggestedDuration: MediaTime?
    /// `@apiFramework`.
    public var apiFramework: String?
    /// Resources.
    public var resources: [CreativeResource]
    /// `<AdParameters>`.
    public var adParameters: String?
    /// `<NonLinearClickThrough>`.
    public var clickThrough: URLTemplate?
    /// `<NonLinearClickTracking>`.
    public var clickTracking: [URLTemplate]
}

/// `<CompanionAds required>`.
public struct CompanionAds: Sendable, Hashable {
    /// `@required`: `all`, `any` or `none`.
    public var required: String?
    /// `<Companion>` elements.
    public var companions: [Companion]
}

/// `<Companion>`: a display ad shown beside the video.
public struct Companion: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `@width`.
    public var width: Int?
    /// `@height`.
    public var height: Int?
    /// `@adSlotId`.
    public var adSlotId: String?
    /// `@apiFramework`.
    public var apiFramework: String?
    /// `@renderingMode` (4.1+).
    public var renderingMode: String?
    /// Resources.
    public var resources: [CreativeResource]
    /// `<AdParameters>`.
    public var adParameters: String?
    /// `<AltText>`.
    public var altText: String?
    /// `<CompanionClickThrough>`.
    public var clickThrough: URLTemplate?
    /// `<CompanionClickTracking>`.
    public var clickTracking: [URLTemplate]
    /// `<TrackingEvents>` (`creativeView`).
    public var trackingEvents: [TrackingEvent]
}
