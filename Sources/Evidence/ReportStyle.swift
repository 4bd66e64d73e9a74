/// The report's one style sheet: a light and a dark scheme by `prefers-color-scheme`, and print
/// rules (no backgrounds but the frames', no row split across pages).
enum ReportStyle {
    static let css = """
        :root{color-scheme:light dark;--bg:#ffffff;--fg:#1c1c1c;--muted:#595959;--rule:#c8c8c8;--good:#0a6b1f;--bad:#b00020;--warn:#8a4b00;--hi:#fff1c2;--span:#3b6ea8}
        @media (prefers-color-scheme: dark){:root{--bg:#15171a;--fg:#e6e6e6;--muted:#a8a8a8;--rule:#444;--good:#6fd38a;--bad:#ff7a86;--warn:#f0b35a;--hi:#4a3b10;--span:#7fb0e8}}
        body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem}
        h1{font-size:1.6rem;margin:.5rem 0}h2{border-bottom:1px solid var(--rule);margin-top:2rem}
        code,pre,kbd{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.88em}
        dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
        .notice{border-left:4px solid var(--warn);padding:.3rem .7rem;background:color-mix(in srgb,var(--warn) 10%,transparent)}
        .verdict{font-weight:600;padding:.3rem .6rem;border-left:5px solid}.verdict.good{border-color:var(--good)}.verdict.bad{border-color:var(--bad)}
        table{border-collapse:collapse;width:100%;margin:.6rem 0 1.2rem;font-size:.9rem}
        caption{text-align:left;font-weight:600;padding:.3rem 0}
        th,td{border:1px solid var(--rule);padding:.25rem .45rem;text-align:left;vertical-align:top}
        td code{overflow-wrap:anywhere}.answers{font-size:.82rem}
        thead th{background:color-mix(in srgb,var(--fg) 8%,transparent)}
        tr.failed td:first-child{border-left:4px solid var(--bad)}
        tr.disagree{background:var(--hi);font-weight:600}tr.disagree td:first-child{border-left:4px solid var(--warn)}
        tr.level-fail{color:var(--bad)}tr.level-warn{color:var(--warn)}
        .timeline{width:100%;height:auto;font:12px system-ui,sans-serif}
        .timeline .lane,.timeline .axis{fill:var(--fg)}.timeline .rule{stroke:var(--rule)}
        .timeline .span{fill:var(--span);opacity:.75}.timeline .ok{fill:var(--good)}.timeline .bad{stroke:var(--bad);stroke-width:2.5;fill:none}
        .timeline .mark line{stroke:var(--warn);stroke-dasharray:4 3;stroke-width:1.5}.timeline .mark text{fill:var(--warn);font-weight:700}
        .moments{columns:2;font-size:.9rem}.moments time{font-family:ui-monospace,monospace;color:var(--muted)}
        .frame-box{overflow-x:auto}
        pre.frame{font-size:11px;line-height:1.2;padding:.5rem;display:inline-block;margin:0;print-color-adjust:exact;-webkit-print-color-adjust:exact}
        .decoded{display:flex;gap:1rem;flex-wrap:wrap}.decoded>div{flex:1 1 20rem}.decoded pre{background:color-mix(in srgb,var(--fg) 6%,transparent);padding:.5rem;overflow-x:auto}
        article{margin-bottom:1.5rem}
        @media print{body{max-width:none;font-size:10pt}h2{break-after:avoid}tr,article.mark,figure{break-inside:avoid}a{color:inherit}.notice{background:none}}

        """
}
