/// Hears a `PictureInPictureController` enter and leave picture-in-picture, as AVKit's
/// `AVPictureInPictureControllerDelegate`. Every message is optional.
@MainActor public protocol PictureInPictureControllerDelegate: AnyObject {
    /// Picture-in-picture is about to start.
    func pictureInPictureControllerWillStartPictureInPicture(_ controller: PictureInPictureController)
    /// Picture-in-picture started: the next frame presented shows the window.
    func pictureInPictureControllerDidStartPictureInPicture(_ controller: PictureInPictureController)
    /// Picture-in-picture could not start.
    func pictureInPictureController(_ controller: PictureInPictureController, failedToStartPictureInPictureWithError error: Error)
    /// Picture-in-picture is about to stop.
    func pictureInPictureControllerWillStopPictureInPicture(_ controller: PictureInPictureController)
    /// Picture-in-picture stopped: the next frame presented is full size again.
    func pictureInPictureControllerDidStopPictureInPicture(_ controller: PictureInPictureController)
}

extension PictureInPictureControllerDelegate {
    /// Does nothing: the message is optional.
    public func pictureInPictureControllerWillStartPictureInPicture(_ controller: PictureInPictureController) {}
    /// Does nothing: the message is optional.
    public func pictureInPictureControllerDidStartPictureInPicture(_ controller: PictureInPictureController) {}
    /// Does nothing: the message is optional.
    public func pictureInPictureController(_ controller: PictureInPictureController, failedToStartPictureInPictureWithError error: Error) {}
    /// Does nothing: the message is optional.
    public func pictureInPictureControllerWillStopPictureInPicture(_ controller: PictureInPictureController) {}
    /// Does nothing: the message is optional.
    public func pictureInPictureControllerDidStopPictureInPicture(_ controller: PictureInPictureController) {}
}
