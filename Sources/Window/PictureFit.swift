/// Where the output picture sits in a window area of another size: scaled to fit, aspect kept,
/// centred (letterbox or pillarbox, never stretch), and the mapping of area points back to output
/// pixels. Pure geometry, used for drawing and for clicks.
struct PictureFit: Equatable {
    /// The picture's size in output pixels.
    let pictureWidth: Int, pictureHeight: Int
    /// The rectangle the picture occupies in the area.
    let x: Int, y: Int, width: Int, height: Int

    /// Fits a `pictureWidth`×`pictureHeight` picture into an `areaWidth`×`areaHeight` area.
    init(pictureWidth: Int, pictureHeight: Int, areaWidth: Int, areaHeight: Int) {
        self.pictureWidth = max(pictureWidth, 1)
        self.pictureHeight = max(pictureHeight, 1)
        let aw = max(areaWidth, 1), ah = max(areaHeight, 1)
        // Compare aw/pw with ah/ph in integers: the limiting side fills the area exactly.
        if aw * self.pictureHeight <= ah * self.pictureWidth {
            width = aw
            height = max(1, (aw * self.pictureHeight + self.pictureWidth / 2) / self.pictureWidth)
        } else {
            height = ah
            width = max(1, (ah * self.pictureWidth + self.pictureHeight / 2) / self.pictureHeight)
        }
        x = (aw - width) / 2
        y = (ah - height) / 2
    }

    /// The output pixel under area point (`px`, `py`), or nil when the point is outside the picture.
    func outputPoint(x px: Int, y py: Int) -> (x: Int, y: Int)? {
        guard px >= x, py >= y, px < x + width, py < y + height else { return nil }
        let ox = (px - x) * pictureWidth / width
        let oy = (py - y) * pictureHeight / height
        return (min(ox, pictureWidth - 1), min(oy, pictureHeight - 1))
    }
}
