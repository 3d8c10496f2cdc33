/// The report page's style sheet (inline: the page loads nothing): a light page, white cards
/// per run, charts as wide as their column, one colour per sweep direction.
enum BenchHTMLStyle {
    static let css = """
        :root { color-scheme: light; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #f5f7fa; color: #1f2328;
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        main { max-width: 1160px; margin: 0 auto; padding: 24px 20px 48px; }
        h1 { font-size: 26px; margin: 0 0 12px; }
        h2 { font-size: 20px; margin: 0 0 12px; }
        h3 { font-size: 16px; margin: 20px 0 8px; color: #424a53; }
        code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
        header.document, section.run, details.raw { background: #fff; border: 1px solid #d0d7de; border-radius: 8px;
          padding: 16px 24px; margin: 0 0 20px; }
        nav ol { margin: 4px 0 0; padding-left: 22px; }
        a { color: #0969da; }
        table { border-collapse: collapse; margin: 4px 0 8px; }
        th, td { padding: 3px 12px 3px 0; text-align: left; vertical-align: top; border-bottom: 1px solid #eaeef2; }
        table.data th { font-weight: 600; color: #424a53; border-bottom: 2px solid #d0d7de; }
        table.facts th { font-weight: 600; color: #57606a; white-space: nowrap; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; padding-left: 12px; }
        .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 16px; margin: 12px 0; }
        svg.chart { display: block; width: 100%; height: auto; background: #fff; border: 1px solid #eaeef2; border-radius: 6px; }
        figure { margin: 0; }
        figcaption { font-size: 13px; color: #57606a; margin-top: 4px; }
        svg.chart text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; font-size: 12px; fill: #24292f; }
        svg.chart .tick { font-size: 11px; fill: #57606a; }
        svg.chart .axis-title, svg.chart .panel-title { font-size: 12px; font-weight: 600; fill: #424a53; }
        svg.chart .axis { stroke: #8c959f; stroke-width: 1; }
        svg.chart .grid { stroke: #eaeef2; stroke-width: 1; }
        svg.chart .bar { fill: #4e79a7; }
        svg.chart .bar.side-1 { fill: #f28e2b; }
        svg.chart .curve { fill: none; stroke: #4e79a7; stroke-width: 2; }
        svg.chart .mark { fill: #e15759; }
        svg.chart .marker { stroke: #e15759; stroke-width: 1.5; stroke-dasharray: 4 3; }
        svg.chart .marker-label { fill: #b33a3c; font-size: 11px; }
        svg.chart .point.command, svg.chart .legend-command { fill: #4e79a7; }
        svg.chart .point.response { fill: #f28e2b; }
        svg.chart .whisker { stroke-width: 1.5; opacity: 0.6; }
        svg.chart .whisker.command, svg.chart .fit.command { stroke: #4e79a7; }
        svg.chart .whisker.response, svg.chart .fit.response { stroke: #f28e2b; }
        svg.chart .fit { stroke-width: 2; stroke-dasharray: 6 4; }
        svg.chart .p90 { stroke: #24292f; stroke-width: 2; }
        svg.chart .value { font-size: 11px; fill: #424a53; }
        svg.chart .failure-label { fill: #cf222e; }
        svg.chart .ratio { font-size: 13px; font-weight: 600; }
        .interrupted { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
        .failure { color: #cf222e; }
        .method { color: #57606a; font-size: 14px; }
        .ratio-text { font-weight: 600; }
        ul.plain { margin: 4px 0; padding-left: 20px; }
        pre.json { max-height: 480px; overflow: auto; background: #f6f8fa; padding: 12px; border-radius: 6px; }
        """
}
