// IMA's iOS getting-started guide (BasicExample's ViewController.swift, ../shared/guides/000_*.txt)
// ported to Interlude with only mechanical substitutions. This file imports only Foundation and
// Interlude. The substitutions:
//   import AVFoundation / UIKit / GoogleInteractiveMediaAds → import Foundation / Interlude
//   IMA prefix dropped (IMAAdsLoader → AdsLoader, IMAAdEventType.LOADED → AdEventType.LOADED, …)
//   AVPlayer(url:) → Player(url:clock:) (the clock is the harness's choice: real time or fast)
//   IMAAVPlayerContentPlayhead(avPlayer:) → PlayerContentPlayhead(player:)
//   AVPlayerViewController + self.view → the player's render surface (what the viewer sees);
//     show/hideContentPlayer have nothing to move: the surface shows content or the ad playing
//   UIViewController → a plain class; viewDidLoad/viewDidAppear are called by the harness
//   selector-based NotificationCenter observer → the block-based one (no Objective-C runtime), so
//     contentDidFinishPlaying takes no Notification
//   implicitly unwrapped IMA parameters (IMAAdsManager!) → non-optional
//   print(...) → also kept in `log`, so the harness can check what the app saw
//   the IMA delegate protocols are conformed to with `@preconcurrency`, as a Swift 6 app conforms
//     to IMA's own (Objective-C) delegates: the calls come on the main queue, which it checks
import Foundation
import Interlude

@MainActor
class ViewController: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate {
  static var ContentURLString = "https://storage.googleapis.com/interactive-media-ads/media/stock.mp4"
  static var AdTagURLString = "https://pubads.g.doubleclick.net/gampad/ads?iu=/21775744923/external/single_ad_samples&sz=640x480&cust_params=sample_ct%3Dlinear&ciu_szs=300x250%2C728x90&gdfp_req=1&output=vast&unviewed_position_start=1&env=vp&impl=s&correlator="
  static var clock = PlaybackClock.realTime

  var adsLoader: AdsLoader!
  var adsManager: AdsManager!
  var contentPlayhead: PlayerContentPlayhead?
  var player: Player!
  var view: RenderSurface!
  var log: [String] = []
  nonisolated(unsafe) private var endObserver: NSObjectProtocol?   // set once, read in deinit

  deinit {
    if let endObserver { NotificationCenter.default.removeObserver(endObserver) }
  }

  func viewDidLoad() {
    setUpContentPlayer()
    setUpAdsLoader()
  }

  func viewDidAppear(_ animated: Bool) {
    requestAds()
  }

  func setUpContentPlayer() {
    // Load AVPlayer with path to your content.
    let contentURL = URL(string: ViewController.ContentURLString)!
    let player = Player(url: contentURL, clock: ViewController.clock)
    self.player = player
    view = player.surface

    // Set up your content playhead and contentComplete callback.
    contentPlayhead = PlayerContentPlayhead(player: player)
    endObserver = NotificationCenter.default.addObserver(
      forName: Notification.Name.PlayerItemDidPlayToEndTime,
      object: player.currentItem,
      queue: .main) { [weak self] _ in
        MainActor.assumeIsolated { self?.contentDidFinishPlaying() }
      }
  }

  func setUpAdsLoader() {
    adsLoader = AdsLoader(settings: nil)
    adsLoader.delegate = self
  }

  func requestAds() {
    // Create ad display container for ad rendering.
    let adDisplayContainer = AdDisplayContainer(adContainer: self.view)
    // Create an ad request with our ad tag, display container, and optional user context.
    let request = AdsRequest(
        adTagUrl: ViewController.AdTagURLString,
        adDisplayContainer: adDisplayContainer,
        contentPlayhead: contentPlayhead,
        userContext: nil)

    adsLoader.requestAds(with: request)
  }

  func contentDidFinishPlaying() {
    adsLoader.contentComplete()
  }

  // MARK: - IMAAdsLoaderDelegate

  func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData) {
    // Grab the instance of the IMAAdsManager and set yourself as the delegate.
    adsManager = adsLoadedData.adsManager
    adsManager.delegate = self
    adsManager.initialize(with: nil)
  }

  func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData) {
    print("Error loading ads: " + adErrorData.adError.message)
    log.append("loader error \(adErrorData.adError.code)")
    player.play()
  }

  // MARK: - IMAAdsManagerDelegate

  func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
    log.append(event.typeString)
    // Play each ad once it has been loaded
    if event.type == AdEventType.LOADED {
      adsManager.start()
    }
  }

  func adsManager(_ adsManager: AdsManager, didReceive error: AdError) {
    // Fall back to playing content
    print("AdsManager error: " + error.message)
    log.append("error \(error.code)")
    player.play()
  }

  func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
    // Pause the content for the SDK to play ads.
    log.append("contentPause at " + String(format: "%.3f", player.currentTime().seconds))
    player.pause()
  }

  func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
    // Resume the content since the SDK is done playing ads (at least for now).
    log.append("contentResume")
    player.play()
  }
}
