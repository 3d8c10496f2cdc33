/// An inline SVG chart being drawn: a `viewBox` in user units, a `<title>` and `<desc>` for
/// screen readers, and elements appended one by one. All text given to it is escaped.
struct SVGChart {
    /// The `data-chart` attribute: which chart this is ("latency-histogram", "percentile-curve",
    /// "sweep", "operations", "comparison").
    var kind: String
    var width: Double
    var height: Double
    var title: String
    var description: String
    private var elements: [String] = []

    /// An empty chart.
    ///
    /// - Parameters:
    ///   - kind: the `data-chart` value.
    ///   - width: the viewBox width.
    ///   - height: the viewBox height.
    ///   - title: the accessible name.
    ///   - description: the accessible description (what the chart shows, in words).
    init(kind: String, width: Double, height: Double, title: String, description: String) {
        self.kind = kind
        self.width = width
        self.height = height
        self.title = title
        self.description = description
    }

    /// A coordinate in SVG text: one decimal, no exponent, 0 for anything not finite.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return BenchNumberFormat.fixed(min(max(value, -1e6), 1e6), decimals: 1)
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(HTMLText.escape($0.1))\"" }.joined()
    }

    private static func tooltip(_ text: String?) -> String {
        guard let text else { return "" }
        return "<title>\(HTMLText.escape(text))</title>"
    }

    /// Adds a rectangle (widths and heights below zero are drawn as zero).
    mutating func rect(x: Double, y: Double, width: Double, height: Double, className: String, tooltip: String? = nil) {
        let attributes = Self.attributes([
            ("x", Self.coordinate(x)), ("y", Self.coordinate(y)), ("width", Self.coordinate(max(0, width))),
            ("height", Self.coordinate(max(0, height))), ("class", className),
        ])
        if let tooltip {
            elements.append("<rect\(attributes)>\(Self.tooltip(tooltip))</rect>")
        } else {
            elements.append("<rect\(attributes)/>")
        }
    }

    /// Adds a line segment.
    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, className: String) {
        let attributes = Self.attributes([
            ("x1", Self.coordinate(x1)), ("y1", Self.coordinate(y1)), ("x2", Self.coordinate(x2)),
            ("y2", Self.coordinate(y2)), ("class", className),
        ])
        elements.append("<line\(attributes)/>")
    }

    /// Adds a circle.
    mutating func circle(x: Double, y: Double, radius: Double, className: String, tooltip: String? = nil) {
        let attributes = Self.attributes([
            ("cx", Self.coordinate(x)), ("cy", Self.coordinate(y)), ("r", Self.coordinate(radius)),
            ("class", className),
        ])
        elements.append("<circle\(attributes)>\(Self.tooltip(tooltip))</circle>")
    }

    /// Adds an open path through the points (nothing for fewer than two).
    mutating func polyline(_ points: [(x: Double, y: Double)], className: String) {
        guard points.count >= 2 else { return }
        let data = points.enumerated().map { index, point in
            (index == 0 ? "M" : "L") + Self.coordinate(point.x) + " " + Self.coordinate(point.y)
        }.joined(separator: " ")
        elements.append("<path\(Self.attributes([("d", data), ("class", className)]))/>")
    }

    /// Where text sits relative to its x coordinate.
    enum Anchor: String {
        case start, middle, end
    }

    /// Adds a text label (escaped).
    mutating func text(
        _ content: String, x: Double, y: Double, anchor: Anchor = .start, className: String = "label",
        rotation: Double? = nil
    ) {
        var pairs = [
            ("x", Self.coordinate(x)), ("y", Self.coordinate(y)), ("text-anchor", anchor.rawValue),
            ("class", className),
        ]
        if let rotation {
            pairs.append(
                ("transform", "rotate(\(Self.coordinate(rotation)) \(Self.coordinate(x)) \(Self.coordinate(y)))"))
        }
        elements.append("<text\(Self.attributes(pairs))>\(HTMLText.escape(content))</text>")
    }

    /// The `<svg>` element.
    var markup: String {
        let opening =
            "<svg class=\"chart\" data-chart=\"\(HTMLText.escape(kind))\" viewBox=\"0 0 \(Self.coordinate(width)) "
            + "\(Self.coordinate(height))\" role=\"img\">"
        return opening + "<title>\(HTMLText.escape(title))</title><desc>\(HTMLText.escape(description))</desc>\n"
            + elements.joined(separator: "\n") + "\n</svg>"
    }
}
