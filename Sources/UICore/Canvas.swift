/// One character cell of a frame: plain data (a scalar and a role, 8 bytes), so a frame is one
/// flat buffer that fills, compares and diffs at memory speed.
public struct Cell: Equatable, Sendable, BitwiseCopyable {
    public var scalar: Unicode.Scalar
    public var role: StyleRole

    public init(_ scalar: Unicode.Scalar = " ", role: StyleRole = .text) {
        self.scalar = scalar
        self.role = role
    }

    public var character: Character { Character(scalar) }

    /// Whether `count` cells at `a` and at `b` are equal, read a word a cell with the padding
    /// masked off (a cell's padding bytes are never written, so they may differ between equal
    /// cells); cell by cell if the layout is not the one the mask is made for.
    @inline(__always)
    static func sameRow(_ a: UnsafePointer<Cell>, _ b: UnsafePointer<Cell>, count: Int) -> Bool {
        guard wordLayout else { return (0..<count).allSatisfy { a[$0] == b[$0] } }
        let (wordsA, wordsB) = (UnsafeRawPointer(a), UnsafeRawPointer(b))
        var differ: UInt64 = 0
        for i in 0..<count {
            let offset = i &* 8
            differ |=
                (wordsA.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    ^ wordsB.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        return differ & meaningfulBits == 0
    }

    /// The scalar's four bytes, then the role's one, in an eight-byte stride.
    private static let wordLayout =
        MemoryLayout<Cell>.stride == 8 && MemoryLayout<Cell>.offset(of: \.scalar) == 0
        && MemoryLayout<Cell>.offset(of: \.role) == 4 && MemoryLayout<StyleRole>.size == 1
    /// Those five bytes of a word read from memory, whichever end of it they land in.
    private static let meaningfulBits = (UInt64(1 << 40) - 1).littleEndian
}

/// A frame as a grid of styled cells: what `render` returns and the terminal draws.
/// Every scalar put here occupies exactly one column.
public struct Canvas: Equatable, Sendable {
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        let count = self.width * self.height
        cells = Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            Self.blank(buffer)
            initialized = count
        }
    }

    /// A blank canvas in `storage`'s memory when nothing else holds it and the size is the same
    /// (else in new memory): a drawer of thousands of frames draws each over the one it has just
    /// encoded, memory still in the core's cache, where a new 60 KiB canvas is memory no cache holds.
    public init(width: Int, height: Int, reusing storage: consuming Canvas) {
        self.width = max(0, width)
        self.height = max(0, height)
        var cells = storage.cells
        storage.cells = []
        if cells.count == self.width * self.height {
            cells.withUnsafeMutableBufferPointer { Self.blank($0) }
            self.cells = cells
        } else {
            self = Canvas(width: width, height: height)
        }
    }

    /// Fills `buffer` with blank cells: a row's worth written one by one, then copied over in
    /// doubling runs, which memmove writes a wide stride at a time (a frame's 60 KiB in a third
    /// of the time a cell-by-cell fill takes).
    private static func blank(_ buffer: UnsafeMutableBufferPointer<Cell>) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var done = min(buffer.count, 256)
        base.initialize(repeating: Cell(), count: done)
        while done < buffer.count {
            let run = min(done, buffer.count - done)
            // A cell is `BitwiseCopyable`: copying its bytes initializes it.
            UnsafeMutableRawPointer(base + done).copyMemory(from: base, byteCount: run * MemoryLayout<Cell>.stride)
            done += run
        }
    }

    public subscript(x: Int, y: Int) -> Cell {
        get { contains(x, y) ? cells[y * width + x] : Cell() }
        set { if contains(x, y) { cells[y * width + x] = newValue } }
    }

    @inline(__always)
    func contains(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    /// Writes `text` from (x, y), clipped at `limit` columns and at the canvas edge. Returns the columns used.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, role: StyleRole = .text, limit: Int? = nil) -> Int {
        write(text, x: x, y: y, role: role, limit: limit).columns
    }

    /// Writes like `put`, and says whether text was left over at the limit.
    private mutating func write(_ text: String, x: Int, y: Int, role: StyleRole, limit: Int?) -> (
        columns: Int, cut: Bool
    ) {
        guard y >= 0, y < height, x < width else { return (0, !text.isEmpty) }
        let room = min(limit ?? Int.max, width - x)
        guard room > 0 else { return (0, !text.isEmpty) }
        let row = y * width
        var column = 0
        var ascii = true
        var cut = false
        // The fast path: ASCII text is one byte per column, read straight from its UTF-8.
        var text = text
        text.withUTF8 { bytes in
            cells.withUnsafeMutableBufferPointer { buffer in
                for byte in bytes {
                    if byte == 0x0A { return }
                    guard column < room else {
                        cut = true
                        return
                    }
                    guard byte < 0x80 else {
                        ascii = false
                        return
                    }
                    let cellX = x + column
                    if cellX >= 0 {
                        buffer[row + cellX] = Cell(
                            byte >= 0x20 && byte != 0x7F ? Unicode.Scalar(byte) : "?", role: role)
                    }
                    column += 1
                }
            }
        }
        if ascii { return (column, cut) }
        // The last ASCII character may join what follows (an accent after it): take it again.
        column = max(0, column - 1)
        // Then scalars that are one column each and never join a neighbour of the same kind (ASCII,
        // Latin-1, box drawing, blocks, arrows): the rules, bars and marks of every frame.
        let scalars = text.unicodeScalars
        // The ASCII written so far is one byte per scalar, so its UTF-8 offset is a scalar index.
        var i = text.utf8.index(text.utf8.startIndex, offsetBy: column)
        while i < scalars.endIndex {
            let scalar = scalars[i]
            guard Self.standsAlone(scalar) else { break }
            let after = scalars.index(after: i)
            if after < scalars.endIndex, !Self.standsAlone(scalars[after]) { break }
            guard column < room else { return (column, true) }
            self[x + column, y] = Cell(scalar, role: role)
            column += 1
            i = after
        }
        if i == scalars.endIndex { return (column, cut) }
        // Anything else (accents, CJK, emoji, controls), from a grapheme boundary: one grapheme per column.
        for character in text[i...] {
            if character == "\n" { break }
            guard column < room else {
                cut = true
                break
            }
            self[x + column, y] = Cell(Self.singleWidth(character), role: role)
            column += 1
        }
        return (column, cut)
    }

    /// Writes `text` clipped to `width` columns, ending in `…` when cut.
    @discardableResult
    public mutating func putTruncated(_ text: String, x: Int, y: Int, width: Int, role: StyleRole = .text) -> Int {
        guard width > 0 else { return 0 }
        let (used, cut) = write(text, x: x, y: y, role: role, limit: width)
        guard cut, used == width else { return used }
        self[x + used - 1, y] = Cell("…", role: role)
        return used
    }

    /// Copies `row` from (x, y), clipped at `limit` columns and at the canvas edge; returns the
    /// columns written. Cells made once and drawn again (a rule, a graph's lane, a kept log row).
    @discardableResult
    public mutating func put(cells row: [Cell], x: Int, y: Int, limit: Int) -> Int {
        guard y >= 0, y < height, x >= 0, x < width else { return 0 }
        let count = min(row.count, limit, width - x)
        guard count > 0 else { return 0 }
        let start = y * width + x
        cells.withUnsafeMutableBufferPointer { buffer in
            row.withUnsafeBufferPointer { source in
                for i in 0..<count { buffer[start + i] = source[i] }
            }
        }
        return count
    }

    public mutating func fill(
        x: Int, y: Int, width: Int, height: Int, _ scalar: Unicode.Scalar = " ", role: StyleRole = .text
    ) {
        let left = max(0, x)
        let right = min(self.width, x + max(0, width))
        let top = max(0, y)
        let bottom = min(self.height, y + max(0, height))
        guard left < right, top < bottom else { return }
        let cell = Cell(scalar, role: role)
        let w = self.width
        cells.withUnsafeMutableBufferPointer { buffer in
            for row in top..<bottom {
                for column in left..<right { buffer[row * w + column] = cell }
            }
        }
    }

    /// A single-line box with an optional title in its top edge.
    public mutating func box(
        x: Int, y: Int, width: Int, height: Int, title: String? = nil, role: StyleRole = .border,
        titleRole: StyleRole = .title
    ) {
        guard width >= 2, height >= 2 else { return }
        fill(x: x + 1, y: y, width: width - 2, height: 1, "─", role: role)
        fill(x: x + 1, y: y + height - 1, width: width - 2, height: 1, "─", role: role)
        fill(x: x, y: y + 1, width: 1, height: height - 2, "│", role: role)
        fill(x: x + width - 1, y: y + 1, width: 1, height: height - 2, "│", role: role)
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
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: cells[(row * width)..<((row + 1) * width)].map(\.scalar))
            var line = String(scalars)
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// A one-column scalar with a grapheme break on both sides when its neighbour is one too:
    /// no controls, combining marks, joiners, Hangul jamo or regional indicators among them.
    @inline(__always)
    static func standsAlone(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x20..<0x7F, 0xA0..<0x300, 0x370..<0x483, 0x2010...0x2027, 0x2030...0x205E, 0x2190...0x2BFF: true
        default: false
        }
    }

    /// Characters that could take two columns (CJK, emoji, combining sequences) would shift
    /// the rest of the row; they are shown as `?` instead.
    static func singleWidth(_ character: Character) -> Unicode.Scalar {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return "?" }
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return "?" }
        if v < 0x1100 || (0x2000...0x2BFF).contains(v) { return scalar }
        return "?"
    }
}

extension Canvas {
    /// Calls `body` for each run of cells that differ from `previous` (all of them when there is
    /// no previous frame of this size), a run being adjacent changed cells of one row and one role.
    /// This is what a terminal backend draws: one style change and one write per run.
    public func forEachChangedRun(
        since previous: Canvas?, _ body: (_ x: Int, _ y: Int, _ run: UnsafeBufferPointer<Cell>) -> Void
    ) {
        let old = previous.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        cells.withUnsafeBufferPointer { new in
            guard let newBase = new.baseAddress else { return }
            let oldCells = old?.cells
            oldCells.withUnsafeBufferPointer { oldBuffer in
                for y in 0..<height {
                    let row = y * width
                    // Most rows of a frame are the row before: a whole row compares as words first.
                    if let oldBase = oldBuffer?.baseAddress, Cell.sameRow(oldBase + row, newBase + row, count: width) {
                        continue
                    }
                    var x = 0
                    while x < width {
                        if let oldBuffer, oldBuffer[row + x] == new[row + x] {
                            x += 1
                            continue
                        }
                        let start = x
                        let role = new[row + x].role
                        x += 1
                        while x < width, new[row + x].role == role,
                            !(oldBuffer.map { $0[row + x] == new[row + x] } ?? false)
                        { x += 1 }
                        body(start, y, UnsafeBufferPointer(start: newBase + row + start, count: x - start))
                    }
                }
            }
        }
    }
}

extension Optional where Wrapped == [Cell] {
    fileprivate func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Cell>?) -> R) -> R {
        switch self {
        case .some(let array): array.withUnsafeBufferPointer { body($0) }
        case .none: body(nil)
        }
    }
}
