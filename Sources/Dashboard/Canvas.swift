/// One character cell of a frame.
public struct Cell: Equatable, Sendable {
    public var character: Character
    public var role: StyleRole
    public init(_ character: Character = " ", role: StyleRole = .text) {
        self.character = character
        self.role = role
    }
}

/// A frame as a grid of styled cells: what `render` returns and the terminal draws.
/// Every character put here occupies exactly one column.
public struct Canvas: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Cell(), count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { contains(x, y) ? cells[y * width + x] : Cell() }
        set { if contains(x, y) { cells[y * width + x] = newValue } }
    }

    func contains(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    /// Writes `text` from (x, y), clipped at `limit` columns and at the canvas edge. Returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: StyleRole = .text, limit: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        let room = min(limit ?? Int.max, width - x)
        var column = 0
        for character in text where column < room {
            if character == "\n" { break }
            self[x + column, y] = Cell(Self.singleWidth(character), role: role)
            column += 1
        }
        return max(0, column)
    }

    /// Writes `text` clipped to `width` columns, ending in `…` when cut.
    @discardableResult
    public mutating func putTruncated(_ text: String, x: Int, y: Int, width: Int, role: StyleRole = .text) -> Int {
        guard width > 0 else { return 0 }
        if text.count <= width { return put(text, x: x, y: y, role: role) }
        return put(String(text.prefix(width - 1)) + "…", x: x, y: y, role: role)
    }

    public mutating func fill(x: Int, y: Int, width: Int, height: Int, _ character: Character = " ", role: StyleRole = .text) {
        for row in y..<(y + max(0, height)) {
            for column in x..<(x + max(0, width)) { self[column, row] = Cell(character, role: role) }
        }
    }

    /// A single-line box with an optional title in its top edge.
    public mutating func box(x: Int, y: Int, width: Int, height: Int, title: String? = nil, role: StyleRole = .border, titleRole: StyleRole = .title) {
        guard width >= 2, height >= 2 else { return }
        for column in (x + 1)..<(x + width - 1) {
            self[column, y] = Cell("─", role: role)
            self[column, y + height - 1] = Cell("─", role: role)
        }
        for row in (y + 1)..<(y + height - 1) {
            self[x, row] = Cell("│", role: role)
            self[x + width - 1, row] = Cell("│", role: role)
        }
        self[x, y] = Cell("┌", role: role)
        self[x + width - 1, y] = Cell("┐", role: role)
        self[x, y + height - 1] = Cell("└", role: role)
        self[x + width - 1, y + height - 1] = Cell("┘", role: role)
        if let title, width > 6 {
            putTruncated(" \(title) ", x: x + 2, y: y, width: width - 4, role: titleRole)
        }
    }

    /// The frame as text, one string per row, trailing spaces removed: what tests compare.
    public var lines: [String] {
        (0..<height).map { row in
            var line = String(cells[(row * width)..<((row + 1) * width)].map(\.character))
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// Characters that could take two columns (CJK, emoji, combining sequences) would shift
    /// the rest of the row; they are shown as `?` instead.
    static func singleWidth(_ character: Character) -> Character {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return "?" }
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return "?" }
        if v < 0x1100 || (0x2000...0x2BFF).contains(v) { return character }
        return "?"
    }
}
