// IMA's picture-in-picture guide (../shared/guides/003_*.txt, the AdvancedExample's
// VideoViewController) ported to Interlude with only mechanical substitutions, on top of the
// getting-started port (BasicExampleViewController.swift). This file imports only Foundation and
// Interlude. The substitutions, beyond those listed in BasicExampleViewController.swift:
//   Objective-C → Swift (properties, `[obj message:arg]` → `obj.message(arg)`), as the guide's
//     Swift tab spells it
//   AVAudioSession setActive/setCategory(Playback) → nothing: there is no audio session to set on
//     a server; `self.playButton.layer.zPosition = MAXFLOAT` → nothing: no button layer
//   IMASettings → Settings; IMAPictureInPictureProxy → PictureInPictureProxy
//   AVPictureInPictureController(playerLayer: contentPlayerLayer) → PictureInPictureController(player:)
//     (the player's render surface is its layer)
//   IMAAVPlayerVideoDisplay(avPlayer:) → PlayerVideoDisplay(player:)
//   AVPictureInPictureControllerDelegate → PictureInPictureControllerDelegate
//   onPipButtonClicked(_ sender: Any) (an IBAction) → onPipButtonClicked() (the harness presses it)
//   logMessage(...) → also kept in `log`; the PiP delegate methods (the guide leaves their bodies
//     to the app) only log, so the harness sees that the proxy forwarded them
import Foundation
import Interlude

@MainActor
class PictureInPictureViewController: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate, PictureInPictureControllerDelegate {
  static var ContentURLString = ""
  static var clock = PlaybackClock.realTime

  var adsLoader: AdsLoader!
  var adsManager: AdsManager?
  var contentPlayhead: PlayerContentPlayhead?
  var contentPlayer: Player!
  var view: RenderSurface!
  var log: [String] = []

  // PiP objects.
  var pictureInPictureProxy: PictureInPictureProxy!
  var pictureInPictureController: PictureInPictureController!

  nonisolated(unsafe) private var endObserver: NSObjectProtocol?   // set once, read in deinit

  deinit {
    if let endObserver { NotificationCenter.default.removeObserver(endObserver) }
  }

  func viewDidLoad() {
    setupAdsLoader()
    setUpContentPlayer()
  }

  func setupAdsLoader() {
    let settings = Settings()
    settings.enableBackgroundPlayback = true
    adsLoader = AdsLoader(settings: settings)
    adsLoader.delegate = self
  }

  func setUpContentPlayer() {
    let contentURL = URL(string: PictureInPictureViewController.ContentURLString)!
    contentPlayer = Player(url: contentURL, clock: PictureInPictureViewController.clock)
    view = contentPlayer.surface
    contentPlayhead = PlayerContentPlayhead(player: contentPlayer)
    endObserver = NotificationCenter.default.addObserver(
      forName: Notification.Name.PlayerItemDidPlayToEndTime,
      object: contentPlayer.currentItem,
      queue: .main) { [weak self] _ in
        MainActor.assumeIsolated { self?.contentDidFinishPlaying() }
      }

    pictureInPictureProxy =
      PictureInPictureProxy(avPictureInPictureControllerDelegate: self)
    pictureInPictureController = PictureInPictureController(player: contentPlayer)
    pictureInPictureController.delegate = pictureInPictureProxy
  }

  func requestAds(withTag adTagUrl: String) {
    logMessage("Requesting ads")
    // Create an ad request with our ad tag, display container, and optional user context.
    let request = AdsRequest(
      adTagUrl: adTagUrl,
      adDisplayContainer: createAdDisplayContainer(),
      avPlayerVideoDisplay: PlayerVideoDisplay(player: contentPlayer),
      pictureInPictureProxy: pictureInPictureProxy,
      userContext: nil)
    adsLoader.requestAds(with: request)
  }

  func createAdDisplayContainer() -> AdDisplayContainer {
    AdDisplayContainer(adContainer: view)
  }

  func contentDidFinishPlaying() {
    adsLoader.contentComplete()
  }

  func onPipButtonClicked() {
    if pictureInPictureController.isPictureInPictureActive {
      pictureInPictureController.stopPictureInPicture()
    } else {
      pictureInPictureController.startPictureInPicture()
    }
  }

  func logMessage(_ message: String) {
    print(message)
    log.append(message)
  }

  // MARK: - IMAAdsLoaderDelegate

  func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData) {
    adsManager = adsLoadedData.adsManager
    adsManager?.delegate = self
    adsManager?.initialize(with: nil)
  }

  func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData) {
    logMessage("Error loading ads: " + adErrorData.adError.message)
    contentPlayer.play()
  }

  // MARK: - IMAAdsManagerDelegate

  func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
    logMessage("AdsManager event (\(event.typeString)).")
    // When the SDK notified you that ads have been loaded, play them.
    switch event.type {
    case AdEventType.LOADED:
      if !pictureInPictureController.isPictureInPictureActive {
        adsManager.start()
      }
    default:
      break
    }
  }

  func adsManager(_ adsManager: AdsManager, didReceive error: AdError) {
    logMessage("AdsManager error: " + error.message)
    contentPlayer.play()
  }

  func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
    logMessage("AdsManager requested content pause")
    contentPlayer.pause()
  }

  func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
    logMessage("AdsManager requested content resume")
    contentPlayer.play()
  }

  // MARK: - AVPictureInPictureControllerDelegate

  func pictureInPictureControllerWillStartPictureInPicture(_ pictureInPictureController: PictureInPictureController) {
    logMessage("PiP will start")
  }

  func pictureInPictureControllerDidStartPictureInPicture(_ pictureInPictureController: PictureInPictureController) {
    logMessage("PiP did start")
  }

  func pictureInPictureControllerWillStopPictureInPicture(_ pictureInPictureController: PictureInPictureController) {
    logMessage("PiP will stop")
  }

  func pictureInPictureControllerDidStopPictureInPicture(_ pictureInPictureController: PictureInPictureController) {
    logMessage("PiP did stop")
  }
}
