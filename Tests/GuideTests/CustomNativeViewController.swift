// Ad Manager's custom native formats guide (../shared/guides/002_*.txt, Swift snippets) ported to
// Interlude with only mechanical substitutions. This file imports only Foundation and Interlude.
// The substitutions:
//   import UIKit / GoogleMobileAds → import Foundation / Interlude
//   GAD prefix dropped (GADAdLoader → AdLoader, GADCustomNativeAd → CustomNativeAd,
//     GADCustomNativeAdLoaderDelegate → CustomNativeAdLoaderDelegate, GADRequest → AdRequest,
//     GADNativeAssetIdentifier → NativeAssetIdentifier)
//   UIView → NativeView, UILabel → NativeLabel, UIImageView → NativeImageView, UIImage → NativeImage
//     (views are rectangles of a layout drawn into the video, see NativeTemplate)
//   @IBOutlet weak var x: T! → var x: T!, bound by the harness from the template's views by name
//     (what loading the nib does); awakeFromNib is called by the harness after binding
//   UITapGestureRecognizer(target:action: #selector(...)) → TapGestureRecognizer { ... } (no
//     Objective-C selectors); @objc dropped
//   customNativeAdFormatIDs(for:) -> [Any] → -> [String]
//   NSLayoutConstraint visual format "H:|[mainView]|" / "V:|[mainView]|" → mainView.frame = mainPlaceholder.bounds
//   UIAlertView(...).show() → a line in `log`, so the harness can check what the app showed
//   the guide's three populate snippets (assets, AdChoices, video or image) → one populate method
import Foundation
import Interlude

/// Custom native ad view class with format ID 10063170.
@MainActor
class MySimpleNativeAdView: NativeView {

  /// Weak references to this ad's asset views.
  var headlineView: NativeLabel!
  var mainImageView: NativeImageView!
  var captionView: NativeLabel!
  var adChoicesView: NativeImageView!
  var mainPlaceholder: NativeView!

  var customNativeAd: CustomNativeAd!
  var log: [String] = []

  func awakeFromNib() {
    // Enable clicks on AdChoices.
    adChoicesView.addGestureRecognizer(
      TapGestureRecognizer { [unowned self] in
        self.performClickOnAdChoices(nil) })
    adChoicesView.isUserInteractionEnabled = true
  }

  func performClickOnAdChoices(_ sender: NativeImage!) {
    customNativeAd.performClickOnAsset(withKey:
      NativeAssetIdentifier.adChoicesViewAsset.rawValue)
  }

  /// Populates the ad view with the custom native ad object.
  func populate(withCustomNativeAd customNativeAd: CustomNativeAd) {
    self.customNativeAd = customNativeAd

    // Populate the custom native ad assets.
    headlineView.text = self.customNativeAd.string(forKey: "Headline")
    mainImageView.image = self.customNativeAd.image(forKey: "MainImage")?.image
    captionView.text = self.customNativeAd.string(forKey: "Caption")

    // Render the AdChoices image.
    let adChoicesKey = NativeAssetIdentifier.adChoicesViewAsset.rawValue
    let adChoicesImage = customNativeAd.image(forKey: adChoicesKey)?.image
    adChoicesView.image = adChoicesImage
    adChoicesView.isHidden = adChoicesImage == nil

    if customNativeAd.videoController.hasVideoContent(),
      let mediaView = customNativeAd.mediaView {
      updateMainView(mediaView)
    } else {
      // Assumes your native format has an image asset with the name MainImage.
      let image: NativeImage? = customNativeAd.image(forKey: "MainImage")?.image
      updateMainView(NativeImageView(image: image))
    }
  }

  private func updateMainView(_ mainView: NativeView) {
    // Assumes you have a placeholder view for your media content.
    // Remove all the placeholder's subviews.
    for subview: NativeView in mainPlaceholder.subviews {
      subview.removeFromSuperview()
    }
    mainPlaceholder.addSubview(mainView)
    // Size the media view to fill our container size.
    mainView.frame = mainPlaceholder.bounds
  }

  func setUpCustomClickHandler() {
    customNativeAd.customClickHandler = { assetID in
      if assetID == "MainImage" {
        self.log.append("Custom Click: You just clicked on the image!")
      }
    }
    customNativeAd.performClickOnAsset(withKey: "MainImage")
  }
}

/// The app side of the loader: asks for the guide's format and shows what arrives.
@MainActor
class CustomNativeViewController: CustomNativeAdLoaderDelegate {
  static var AdUnitID = "/21775744923/example/native"

  var adLoader: AdLoader!
  var nativeAdView: MySimpleNativeAdView!
  var log: [String] = []

  func viewDidLoad() {
    adLoader = AdLoader(adUnitID: CustomNativeViewController.AdUnitID, rootViewController: self,
                        adTypes: [.customNative], options: nil)
    adLoader.delegate = self
    adLoader.load(AdRequest())
  }

  public func customNativeAdFormatIDs(for adLoader: AdLoader) -> [String] {
    return ["10063170"]
  }

  public func adLoader(_ adLoader: AdLoader,
      didReceive customNativeAd: CustomNativeAd) {
    nativeAdView.populate(withCustomNativeAd: customNativeAd)
    customNativeAd.recordImpression()
  }

  func adLoader(_ adLoader: AdLoader, didFailToReceiveAdWithError error: Error) {
    log.append("Ad loader failed with error: \(error)")
  }
}
