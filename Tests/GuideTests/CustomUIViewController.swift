// IMA's iOS custom-UI guide (../shared/guides/004_*.txt, its Objective-C ViewController.m) on the
// getting-started app (BasicExampleViewController.swift), ported to Interlude with only mechanical
// substitutions. This file imports only Foundation and Interlude. The substitutions, besides those
// of BasicExampleViewController.swift and Objective-C → Swift syntax:
//   IBOutlet UIButton / UILabel → AdUIButton / AdUILabel, their storyboard frames given in code
//     (output pixels of a 320x180 picture) and added with view.addSubview in viewDidLoad
//   the storyboard's "Touch Up Inside" connection → button.onTouchUpInside
//   .hidden → .isHidden; layer.zPosition = MAXFLOAT → zPosition = .greatestFiniteMagnitude
//   self.videoView → self.view (the player's render surface, which IMA's container also uses)
//   INFINITY → .infinity; NSMutableString appendString → String +=; stringWithFormat → String(format:)
//   [UIView setAnimationsEnabled:] and layoutIfNeeded → dropped (nothing animates: the surface
//     draws the new title from the next frame on)
//   the guide's `initializeWithAdsRenderingSettings:` with disableUi, shown in setUpContentPlayer's
//     "...", is where BasicExample initializes the manager: adsLoader(_:adsLoadedWith:)
//   log.append(...) → what the harness checks
import Foundation
import Interlude

@MainActor
class CustomUIViewController: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate {
  static var ContentURLString = ""
  static var AdTagURLString = ""
  static var clock = PlaybackClock.asFastAsPossible

  var learnMore = AdUIButton(frame: PixelRect(x: 8, y: 8, width: 100, height: 24))
  var skipAd = AdUIButton(frame: PixelRect(x: 152, y: 142, width: 160, height: 24))
  var adCountdown = AdUILabel(frame: PixelRect(x: 8, y: 142, width: 120, height: 24))
  var timeTillSkip: TimeInterval = 0
  var currentAd: Ad?

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
    view.addSubview(learnMore)
    view.addSubview(skipAd)
    view.addSubview(adCountdown)
    learnMore.onTouchUpInside = { [weak self] in self?.onLearnMoreTouch(self?.learnMore) }

    hideCustomUi()
    timeTillSkip = .infinity
    learnMore.zPosition = .greatestFiniteMagnitude
    skipAd.zPosition = .greatestFiniteMagnitude
    adCountdown.zPosition = .greatestFiniteMagnitude
  }

  func viewDidAppear(_ animated: Bool) {
    requestAds()
  }

  func setUpContentPlayer() {
    let contentURL = URL(string: CustomUIViewController.ContentURLString)!
    let player = Player(url: contentURL, clock: CustomUIViewController.clock)
    self.player = player
    view = player.surface
    contentPlayhead = PlayerContentPlayhead(player: player)
    endObserver = NotificationCenter.default.addObserver(
      forName: Notification.Name.PlayerItemDidPlayToEndTime,
      object: player.currentItem,
      queue: .main) { [weak self] _ in
        MainActor.assumeIsolated { self?.contentDidFinishPlaying() }
      }
  }

  func contentDidFinishPlaying() {
    adsLoader.contentComplete()
  }

  func setUpAdsLoader() {
    adsLoader = AdsLoader(settings: nil)
    adsLoader.delegate = self
  }

  func requestAds() {
    let adDisplayContainer = AdDisplayContainer(adContainer: self.view)
    let request = AdsRequest(
        adTagUrl: CustomUIViewController.AdTagURLString,
        adDisplayContainer: adDisplayContainer,
        contentPlayhead: contentPlayhead,
        userContext: nil)
    adsLoader.requestAds(with: request)
  }

  func hideCustomUi() {
    self.learnMore.isHidden = true
    self.adCountdown.isHidden = true
    self.skipAd.isHidden = true
  }

  func showCustomUi() {
    self.learnMore.isHidden = false
    self.view.bringSubviewToFront(self.learnMore)
    self.adCountdown.isHidden = false
    if self.currentAd!.isSkippable {
      self.skipAd.isHidden = false
      self.view.bringSubviewToFront(self.skipAd)
    } else {
      self.skipAd.isHidden = true
    }
    self.adCountdown.text = ""
    self.skipAd.setTitle("", for: .normal)
  }

  func onLearnMoreTouch(_ sender: Any?) {
    self.adsManager.clicked()
  }

  // MARK: - IMAAdsLoaderDelegate

  func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData) {
    adsManager = adsLoadedData.adsManager
    adsManager.delegate = self
    let adsRenderingSettings = AdsRenderingSettings()
    adsRenderingSettings.disableUi = true
    self.adsManager.initialize(with: adsRenderingSettings)
  }

  func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData) {
    log.append("loader error \(adErrorData.adError.code)")
    player.play()
  }

  // MARK: - IMAAdsManagerDelegate

  func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
    log.append(event.typeString)
    // When the SDK notified you that ads have been loaded, play them.
    if event.type == AdEventType.LOADED {
      adsManager.start()
    } else if event.type == AdEventType.STARTED {
      self.currentAd = event.ad
      if self.currentAd!.isUiDisabled {
        self.showCustomUi()
      }
    } else if event.type == AdEventType.SKIPPED || event.type == AdEventType.COMPLETE {
      self.hideCustomUi()
    } else if event.type == AdEventType.TAPPED {
      // Since you're disabling IMA's built-in UI, you're also losing the
      // UI element that resumes paused ads with a tap. Add this code
      // to resume paused ads when a user taps on them.
      self.adsManager.resume()
    }
  }

  func adsManager(_ adsManager: AdsManager, didReceive error: AdError) {
    log.append("error \(error.code)")
    player.play()
  }

  func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
    player.pause()
  }

  func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
    player.play()
  }

  func adsManager(_ adsManager: AdsManager, adDidProgressToTime mediaTime: TimeInterval, totalTime: TimeInterval) {
    // Update countdown timer.
    var countdownText = "Ad "
    let totalAds = self.currentAd!.adPodInfo.totalAds
    if totalAds > 1 {
      let position = self.currentAd!.adPodInfo.adPosition
      countdownText += String(format: "%ld of %ld", position, totalAds)
    }
    let remainingTime = totalTime - mediaTime
    countdownText += String(format: " (%.fs)", remainingTime)
    self.adCountdown.text = countdownText

    // Update skip button
    if self.currentAd!.isSkippable {
      self.timeTillSkip = self.currentAd!.skipTimeOffset - mediaTime
      var skipString = "Skip ad"
      if self.timeTillSkip > 0 {
        skipString = String(format: "Skip this ad in %.f...", self.timeTillSkip)
      }
      self.skipAd.setTitle(skipString, for: .normal)
      log.append("skip title " + skipString + String(format: " at %.2f", mediaTime))
    }
  }
}
