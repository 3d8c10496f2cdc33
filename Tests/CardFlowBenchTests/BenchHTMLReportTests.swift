import Testing

@testable import CardFlowBench

@Suite("BenchHTMLReport")
struct BenchHTMLReportTests {
    /// A chart found in a page: its data-chart kind and its markup.
    struct Chart {
        var kind: String
        var markup: String

        /// How often `<element` opens in the chart (`<line` does not count `<polyline`).
        func count(_ element: String) -> Int {
            markup.components(separatedBy: "<\(element) ").count - 1
                + markup.components(separatedBy: "<\(element)>").count - 1
        }

        var drawnElements: Int { ["rect", "circle", "path", "line", "polyline", "text"].map(count).reduce(0, +) }
    }

    static func charts(in html: String) -> [Chart] {
        let marker = "<svg class=\"chart\" data-chart=\""
        return html.components(separatedBy: marker).dropFirst().map { piece in
            let kind = String(piece.prefix { $0 != "\"" })
            let markup = piece.components(separatedBy: "</svg>").first ?? ""
            return Chart(kind: kind, markup: marker + markup + "</svg>")
        }
    }

    static func chart(_ kind: String, in html: String) throws -> Chart {
        try #require(charts(in: html).first { $0.kind == kind })
    }

    @Test("escaping: markup characters and both quotes become character references")
    func escaping() {
        #expect(
            HTMLText.escape("<script>alert('x')</script> & \"q\"")
                == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;")
        #expect(HTMLText.escape("µs – ≈ 日本") == "µs – ≈ 日本")
        #expect(HTMLText.escape("") == "")
    }

    @Test("the page is one HTML5 document with every chart kind, and nothing from the document unescaped")
    func fullPage() throws {
        let html = BenchHTMLReport.render(BenchReportFixtures.fullDocument())
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.hasSuffix("</html>\n"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.contains("<style>"))
        let kinds = Self.charts(in: html).map(\.kind)
        #expect(kinds == ["latency-histogram", "percentile-curve", "sweep", "operations", "comparison"])
        for chart in Self.charts(in: html) {
            #expect(chart.markup.contains("viewBox=\"0 0 "), "\(chart.kind)")
            #expect(chart.markup.contains("<title>") && chart.markup.contains("<desc>"), "\(chart.kind)")
            #expect(chart.drawnElements > 0, "\(chart.kind)")
        }
        // The command line holds a script tag; the first failure holds <, &, and quotes.
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co"))
        #expect(html.contains("card removed &lt;during&gt; exchange &amp; &quot;retry&quot;"))
        #expect(html.contains("write 128 B &lt;data&gt;"))
        #expect(!html.contains("<data>"))
        // Header facts and identity.
        for fact in [
            "bench-host", "Linux 6.1.0-18-amd64 x86_64", "0.9.0", "2025-01-02T03:04:05Z", ">42<", "072F:223B",
            "shortAPDU", "T=1", "424 kbit/s", "3B8180018080", "MIFARE DESFire EV2", ">monotonic<", ">virtual<",
        ] {
            #expect(html.contains(fact), "\(fact)")
        }
        #expect(html.contains("<p class=\"method\"><strong>Method:</strong> closed loop, 100 warm-up round trips"))
        #expect(html.contains("<details class=\"raw\"><summary>Raw JSON (cardflow-bench/1)</summary>"))
        #expect(html.contains("&quot;schema&quot; : &quot;cardflow-bench/1&quot;"))
    }

    @Test("the page loads nothing from the network: no external src, href, url() or @import")
    func selfContained() {
        let html = BenchHTMLReport.render(BenchReportFixtures.fullDocument())
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains("src="))
        #expect(!html.contains("<link"))
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
        let hrefs = html.components(separatedBy: "href=\"").dropFirst()
        #expect(!hrefs.isEmpty)
        #expect(hrefs.allSatisfy { $0.hasPrefix("#run-") })
    }

    @Test("the same document always gives the same page")
    func deterministic() {
        let document = BenchReportFixtures.fullDocument()
        #expect(BenchHTMLReport.render(document) == BenchHTMLReport.render(document))
    }

    @Test("latency: one bar per non-empty bucket, the percentile curve as a path with decade ticks")
    func latencyCharts() throws {
        let run = BenchReportFixtures.latencyRun()
        let latency = try #require(run.latency)
        let html = BenchHTMLReport.render(BenchReportFixtures.document(runs: [run]))
        let histogram = try Self.chart("latency-histogram", in: html)
        #expect(histogram.count("rect") == latency.histogram.filter { $0.count > 0 }.count)
        #expect(histogram.markup.contains("round-trip time (ms)"))
        #expect(histogram.markup.contains(">p50</text>"))
        let curve = try Self.chart("percentile-curve", in: html)
        #expect(curve.count("path") == 1)
        #expect(curve.count("circle") == 4)
        for tick in [">0%<", ">90%<", ">99%<", ">99.9%<", ">max<"] { #expect(curve.markup.contains(tick), "\(tick)") }
        #expect(html.contains("Time extensions: 3"))
        #expect(html.contains("<td class=\"num\">97</td><td class=\"num\">4.70 ms</td><td>2 time extensions</td>"))
    }

    @Test("an interrupted, empty latency run: the banner, and charts that say there are no samples")
    func emptyLatency() throws {
        let html = BenchHTMLReport.render(BenchReportFixtures.document(runs: [BenchReportFixtures.emptyLatencyRun()]))
        #expect(
            html.contains(
                "<p class=\"interrupted\"><strong>Interrupted:</strong> Ctrl-C after 0 samples; results cover what was measured.</p>"
            ))
        let histogram = try Self.chart("latency-histogram", in: html)
        #expect(histogram.count("rect") == 0)
        #expect(histogram.markup.contains(">no samples</text>"))
        let curve = try Self.chart("percentile-curve", in: html)
        #expect(curve.count("path") == 0)
        #expect(curve.drawnElements > 0)
        #expect(html.contains("not visible on this backend"))
    }

    @Test("sweep: a circle and whisker per point in two colours, one fitted line per direction, the fit's numbers")
    func sweepChart() throws {
        let run = BenchReportFixtures.sweepRun()
        let html = BenchHTMLReport.render(BenchReportFixtures.document(runs: [run]))
        let chart = try Self.chart("sweep", in: html)
        // 14 points and the legend's two dots.
        #expect(chart.count("circle") == 16)
        #expect(chart.markup.components(separatedBy: "class=\"point command\"").count - 1 == 8)
        #expect(chart.markup.components(separatedBy: "class=\"point response\"").count - 1 == 8)
        #expect(chart.markup.components(separatedBy: "class=\"whisker command\"").count - 1 == 7)
        #expect(chart.markup.components(separatedBy: "class=\"fit command\"").count - 1 == 1)
        #expect(chart.markup.components(separatedBy: "class=\"fit response\"").count - 1 == 1)
        #expect(chart.markup.contains("command data: 95.0 µs/byte ≈ 84.2 kbit/s"))
        #expect(chart.markup.contains("fit: fixed 1.00 ms, R² 0.9988, max residual 12.3 µs"))
        #expect(html.contains("<th scope=\"row\">Per response byte</th><td>80.0 µs</td>"))
        #expect(html.contains("<th scope=\"row\">Response line rate</th><td>100 kbit/s</td>"))
    }

    @Test("a sweep without a fit draws the points and no line")
    func sweepWithoutFit() throws {
        let html = BenchHTMLReport.render(
            BenchReportFixtures.document(runs: [BenchReportFixtures.sweepRun(fit: false)]))
        let chart = try Self.chart("sweep", in: html)
        #expect(!chart.markup.contains("class=\"fit "))
        #expect(chart.count("circle") == 16)
        #expect(chart.markup.contains("no fit (too few points)"))
        #expect(html.contains("<p>No line was fitted (too few points).</p>"))
    }

    @Test("operations: a labelled p50 bar and a p90 mark per operation; skipped operations listed")
    func operationsChart() throws {
        let html = BenchHTMLReport.render(BenchReportFixtures.document(runs: [BenchReportFixtures.operationsRun()]))
        let chart = try Self.chart("operations", in: html)
        #expect(chart.count("rect") == 4)
        #expect(chart.markup.components(separatedBy: "class=\"p90\"").count - 1 == 4)
        #expect(chart.markup.contains(">authenticate AES (full)</text>"))
        #expect(chart.markup.contains(">write 128 B &lt;data&gt; (full)</text>"))
        #expect(html.contains("<li><strong>change key</strong>: no master key given (--key)</li>"))
    }

    @Test("comparison: bars per side for p50 and APDU/s with the ratio; a failed side shows its error")
    func comparisonChart() throws {
        let html = BenchHTMLReport.render(BenchReportFixtures.document(runs: [BenchReportFixtures.comparisonRun()]))
        let chart = try Self.chart("comparison", in: html)
        #expect(chart.count("rect") == 4)
        #expect(chart.markup.contains("as fast (throughput) as pcscd"))
        #expect(html.contains("<p class=\"ratio-text\">CardFlow is "))

        let failed = BenchHTMLReport.render(
            BenchReportFixtures.document(runs: [BenchReportFixtures.comparisonRun(failedSecond: true)]))
        let failedChart = try Self.chart("comparison", in: failed)
        #expect(failedChart.count("rect") == 2)
        #expect(failedChart.markup.contains("failed: SCardConnect: &lt;no card&gt;"))
        #expect(failed.contains("<p class=\"failure\">Failed: SCardConnect: &lt;no card&gt;</p>"))
    }

    @Test("the percentile axis: decades of 1/(1−p) and their labels")
    func percentileAxis() {
        #expect(PercentileCurveChart.decades(0) == 0)
        #expect(abs((PercentileCurveChart.decades(90) ?? 0) - 1) < 1e-12)
        #expect(abs((PercentileCurveChart.decades(99.9) ?? 0) - 3) < 1e-9)
        #expect(PercentileCurveChart.decades(100) == nil)
        #expect(PercentileCurveChart.label(decade: 0) == "0%")
        #expect(PercentileCurveChart.label(decade: 2) == "99%")
        #expect(PercentileCurveChart.label(decade: 5) == "99.999%")
        #expect(abs(DecimalLogarithm.log10(1000) - 3) < 1e-12)
        #expect(abs(DecimalLogarithm.log10(2) - 0.301_029_995_663_981_2) < 1e-12)
        #expect(DecimalLogarithm.log10(0) == -.infinity)
    }
}
