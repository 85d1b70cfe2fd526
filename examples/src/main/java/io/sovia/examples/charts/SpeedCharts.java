package io.sovia.examples.charts;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.nio.file.Files;
import java.text.DecimalFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws the speed benchmark's CSV ({@code examples/speed.sh}: {@code section,pinning,api,size,agent,value,unit})
 * as PNG charts: one-way latency and bandwidth over message sizes per path ({@code curves} rows), the RPC calls'
 * mean time per argument size ({@code rpc}) and the FTP transfers' rates ({@code ftp}), separate-core figures.
 * A chart is drawn only where its rows are there.
 *
 * <pre>
 *   SpeedCharts CSV DIR    writes DIR/latency.png, bandwidth.png, rpc.png, ftp.png; prints each file's name
 * </pre>
 */
public final class SpeedCharts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 520;
    private static final String PINNING = "separate-cores";

    /** One CSV row. */
    private record Row(String section, String pinning, String api, String size, String agent, double value,
                       String unit) {
    }

    private SpeedCharts() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: SpeedCharts CSV DIR");
            System.exit(2);
        }
        List<Row> rows = read(Path.of(args[0]));
        Path dir = Files.createDirectories(Path.of(args[1]));
        curve(rows, "latency", "One-way latency (half a 1:1 round trip, blocking NIO)", "microseconds", dir);
        curve(rows, "bandwidth", "Bandwidth (one-way stream, direct-buffer writes)", "MiB/s", dir);
        rpc(rows, dir);
        ftp(rows, dir);
    }

    private static List<Row> read(Path csv) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(csv)) {
            String[] f = line.split(",");
            if (f.length != 7 || f[0].equals("section")) {
                continue;
            }
            try {
                rows.add(new Row(f[0], f[1], f[2], f[3], f[4], Double.parseDouble(f[5]), f[6]));
            } catch (NumberFormatException empty) {
                // a figure the run could not take (printed as "-" or empty): nothing to draw
            }
        }
        return rows;
    }

    /** Sizes on a log axis, one line per path. */
    private static void curve(List<Row> rows, String kind, String title, String unit, Path dir) throws IOException {
        Map<String, XYSeries> byPath = new LinkedHashMap<>();
        for (Row r : rows) {
            if (r.section().equals("curves") && r.api().equals(kind) && r.value() > 0) {
                byPath.computeIfAbsent(label(r.agent()), XYSeries::new).add(Double.parseDouble(r.size()), r.value());
            }
        }
        if (byPath.isEmpty()) {
            return;
        }
        XYSeriesCollection data = new XYSeriesCollection();
        byPath.values().forEach(data::addSeries);
        LogAxis sizes = new LogAxis("message size (bytes)");
        sizes.setBase(2);
        sizes.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        LogAxis values = new LogAxis(unit);
        values.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
        XYPlot plot = new XYPlot(data, sizes, values, new XYLineAndShapeRenderer(true, true));
        save(new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), dir, kind);
    }

    private static void rpc(List<Row> rows, Path dir) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Row r : rows) {
            if (r.section().equals("rpc") && r.pinning().equals(PINNING) && r.unit().equals("mean_us")) {
                data.addValue(r.value(), r.api().toUpperCase() + (r.agent().equals("yes") ? " Sovia" : " JDK TCP"),
                        r.size().equals("null") ? "null call" : r.size() + " B");
            }
        }
        bars(data, "RPC call time, mean (two JVMs, separate cores)", "argument size", "microseconds", dir, "rpc");
    }

    private static void ftp(List<Row> rows, Path dir) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Row r : rows) {
            if (r.section().equals("ftp") && r.pinning().equals(PINNING)) {
                data.addValue(r.value(), r.agent().equals("yes") ? "Sovia" : "JDK TCP", r.api() + " " + mb(r.size()));
            } else if (r.section().equals("ftp") && r.agent().equals("reference")) {
                data.addValue(r.value(), "local copy", "cp " + mb(r.size()));
            }
        }
        bars(data, "FTP transfer rate, RAM to RAM (two JVMs, separate cores)", "transfer", "MB/s", dir, "ftp");
    }

    private static String mb(String bytes) {
        return Math.round(Double.parseDouble(bytes) / 1e6) + " MB";
    }

    private static void bars(DefaultCategoryDataset data, String title, String categories, String unit, Path dir,
                             String name) throws IOException {
        if (data.getRowCount() == 0) {
            return;
        }
        CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(categories), new NumberAxis(unit),
                new BarRenderer());
        save(new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true), dir, name);
    }

    private static void save(JFreeChart chart, Path dir, String name) throws IOException {
        Path file = dir.resolve(name + ".png");
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
        System.out.println("chart " + file);
    }

    private static String label(String path) {
        return switch (path) {
            case "tcp" -> "JDK TCP";
            case "unix" -> "UNIX domain socket";
            default -> "Sovia " + path;
        };
    }
}
