/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.samples;

import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.cnc.CncFileDescriptor;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.driver.DriverVersion;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.metaroce.samples.MetricFamily.gauge;
import static io.metaroce.samples.MetricFamily.millisTimestampGauge;

/**
 * A Prometheus collector that reads a media driver's counters from its CnC file on every scrape: nothing is copied on
 * a timer, and the driver is never disturbed (the file is mapped read-only). The collector follows the driver
 * across restarts: when {@code cnc.dat} is replaced or removed, or its driver falls silent, it maps the file anew on
 * the next scrape, and reports {@code metaroce_up 0} until a live driver's file is there.
 * <p>
 * The counters themselves are served only while the driver is live (its heartbeat younger than the driver
 * timeout): a stopped driver's file holds frozen values that would read as an idle, healthy driver. Two counters
 * that decode to the same family and labels (two engines with the same addresses and different settings) are told
 * apart by a {@code counter_id} label.
 * <p>
 * Thread safe: scrapes are serialised.
 */
final class DriverMetricsCollector implements MultiCollector, AutoCloseable
{
    static final MetricFamily UP = gauge(
        "metaroce_up", "1 when the driver's CnC file is mapped and its heartbeat is younger than the driver " +
        "timeout, else 0.");
    static final MetricFamily DRIVER_HEARTBEAT = millisTimestampGauge(
        "metaroce_driver_heartbeat_timestamp_seconds", "Time of the driver's last heartbeat in its CnC file.");
    static final MetricFamily DRIVER_START = millisTimestampGauge(
        "metaroce_driver_start_timestamp_seconds", "Time the driver started.");
    static final String DRIVER_INFO_NAME = "metaroce_driver";
    static final String DRIVER_INFO_HELP = "The driver whose counters are served: CnC version, pid and directory.";
    static final String BUILD_INFO_NAME = "metaroce_build";
    static final String BUILD_INFO_HELP = "The build of this exporter and of the driver it ships with: version and " +
        "commit.";
    private static final Labels BUILD_INFO_LABELS = Labels.of(
        "version", DriverVersion.version(), "commit", DriverVersion.commit());

    private final File directory;
    private final long driverTimeoutMs;
    private final EpochClock epochClock;
    private final StreamAggregation aggregation;
    private final PrintStream log;
    private CncFile cncFile;
    private CountersReader countersReader;
    private Object mappedFileIdentity;
    private String status = "";
    private boolean isClosed;

    /**
     * A collector for the driver of a directory.
     *
     * @param directory       of the driver.
     * @param driverTimeoutMs heartbeat age beyond which the driver is not live.
     * @param epochClock      to age the heartbeat.
     * @param aggregation     of the series of streams.
     * @param log             to print a line to when the driver appears, goes or cannot be read.
     */
    DriverMetricsCollector(
        final File directory,
        final long driverTimeoutMs,
        final EpochClock epochClock,
        final StreamAggregation aggregation,
        final PrintStream log)
    {
        this.directory = directory;
        this.driverTimeoutMs = driverTimeoutMs;
        this.epochClock = epochClock;
        this.aggregation = aggregation;
        this.log = log;
    }

    /**
     * Map the driver's CnC file if there is one, failing for a file this process may not use or cannot read, so
     * that such a misconfiguration stops the exporter at start rather than showing as {@code metaroce_up 0}.
     *
     * @return true when a driver's CnC file was mapped.
     * @throws ConfigurationException if this process may not read the file or its directory.
     * @throws IllegalStateException  if the file has an incompatible version or is too short.
     */
    synchronized boolean mapIfPresent()
    {
        refresh(true);
        if (null != cncFile)
        {
            final long heartbeatAgeMs = epochClock.time() - cncFile.driverHeartbeatMs();
            reportLiveness(heartbeatAgeMs <= driverTimeoutMs, heartbeatAgeMs);
        }

        return null != cncFile;
    }

    /**
     * {@inheritDoc}
     */
    public synchronized MetricSnapshots collect()
    {
        final Samples samples = new Samples();
        boolean isLive = false;
        if (!isClosed)
        {
            refresh(false);
        }

        final MetricSnapshots.Builder snapshots = MetricSnapshots.builder();
        snapshots.metricSnapshot(InfoSnapshot.builder()
            .name(BUILD_INFO_NAME)
            .help(BUILD_INFO_HELP)
            .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(BUILD_INFO_LABELS).build())
            .build());
        if (null != cncFile)
        {
            final long nowMs = epochClock.time();
            final long heartbeatMs = cncFile.driverHeartbeatMs();
            isLive = nowMs - heartbeatMs <= driverTimeoutMs;
            samples.sample(DRIVER_HEARTBEAT, Labels.EMPTY, DRIVER_HEARTBEAT.value(heartbeatMs), -1);
            samples.sample(DRIVER_START, Labels.EMPTY, DRIVER_START.value(cncFile.startTimestampMs()), -1);
            snapshots.metricSnapshot(InfoSnapshot.builder()
                .name(DRIVER_INFO_NAME)
                .help(DRIVER_INFO_HELP)
                .dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder()
                    .labels(Labels.of(
                        "cnc_version", cncFile.versionString(),
                        "pid", Long.toString(cncFile.pid()),
                        "directory", directory.getPath()))
                    .build())
                .build());

            if (isLive)
            {
                final CountersReader counters = countersReader;
                counters.forEach((counterId, typeId, keyBuffer, label) -> CounterMetricDecoder.decode(
                    counterId, typeId, keyBuffer, label, counters.getCounterValue(counterId), samples));
            }

            reportLiveness(isLive, nowMs - heartbeatMs);
        }
        samples.sample(UP, Labels.EMPTY, isLive ? 1 : 0, -1);

        samples.addTo(snapshots, aggregation);
        return snapshots.build();
    }

    /**
     * Unmap the CnC file; later scrapes report {@code metaroce_up 0}.
     */
    public synchronized void close()
    {
        isClosed = true;
        unmap();
    }

    private void refresh(final boolean failOnError)
    {
        final Object identity = fileIdentity(new File(directory, CncFileDescriptor.CNC_FILE));
        // A file that was replaced, removed, or whose driver fell silent is mapped afresh: a restarted driver may
        // have reused the inode of a deleted file.
        if (null != cncFile && (null == identity || !identity.equals(mappedFileIdentity) ||
            epochClock.time() - cncFile.driverHeartbeatMs() > driverTimeoutMs))
        {
            unmap();
        }

        if (null == cncFile)
        {
            try
            {
                final CncFile mapped = null == identity ? null : CncFile.mapExisting(directory, true);
                if (null == mapped)
                {
                    report("no media driver CnC file in " + directory + " (set -Dmetaroce.dir=...)");
                }
                else
                {
                    cncFile = mapped;
                    countersReader = mapped.newCountersReader();
                    mappedFileIdentity = identity;
                }
            }
            catch (final ConfigurationException | IllegalStateException ex)
            {
                if (failOnError)
                {
                    throw ex;
                }
                report(ex.getMessage());
            }
        }
    }

    private void unmap()
    {
        if (null != cncFile)
        {
            cncFile.close();
            cncFile = null;
            countersReader = null;
            mappedFileIdentity = null;
        }
    }

    private void reportLiveness(final boolean isLive, final long heartbeatAgeMs)
    {
        report("driver pid " + cncFile.pid() + " in " + directory + (isLive ? " is live" :
            " is not live: heartbeat " + heartbeatAgeMs + " ms ago"));
    }

    private void report(final String newStatus)
    {
        // One line per change of state, not per scrape.
        if (!newStatus.equals(status))
        {
            status = newStatus;
            log.println("metaroce exporter: " + newStatus);
        }
    }

    /**
     * What tells one {@code cnc.dat} from the next one a restarted driver creates: the inode where the file system
     * has one.
     */
    private static Object fileIdentity(final File file)
    {
        try
        {
            final BasicFileAttributes attributes =
                Files.readAttributes(file.toPath(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            final Object fileKey = attributes.fileKey();
            return null != fileKey ? fileKey : attributes.creationTime();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    /**
     * The samples of one scrape by family, in a stable family order.
     */
    private static final class Samples implements CounterMetricDecoder.Sink
    {
        private final Map<MetricFamily, List<StreamAggregation.Sample>> samplesByFamily = new LinkedHashMap<>();

        Samples()
        {
            samplesByFamily.put(UP, new ArrayList<>());
            samplesByFamily.put(DRIVER_HEARTBEAT, new ArrayList<>());
            samplesByFamily.put(DRIVER_START, new ArrayList<>());
            for (final MetricFamily family : CounterMetricDecoder.counterFamilies())
            {
                samplesByFamily.put(family, new ArrayList<>());
            }
            for (final MetricFamily family : StreamAggregation.families())
            {
                samplesByFamily.put(family, new ArrayList<>());
            }
        }

        public void sample(final MetricFamily family, final Labels labels, final double value, final int counterId)
        {
            samplesByFamily.get(family).add(new StreamAggregation.Sample(labels, value, counterId));
        }

        void addTo(final MetricSnapshots.Builder snapshots, final StreamAggregation aggregation)
        {
            aggregation.apply(samplesByFamily);
            for (final Map.Entry<MetricFamily, List<StreamAggregation.Sample>> entry : samplesByFamily.entrySet())
            {
                final List<StreamAggregation.Sample> samples = entry.getValue();
                if (!samples.isEmpty())
                {
                    snapshots.metricSnapshot(snapshot(entry.getKey(), samples));
                }
            }
        }

        private static MetricSnapshot snapshot(
            final MetricFamily family, final List<StreamAggregation.Sample> samples)
        {
            final Map<Labels, Integer> occurrences = new HashMap<>();
            for (final StreamAggregation.Sample sample : samples)
            {
                occurrences.merge(sample.labels(), 1, Integer::sum);
            }

            switch (family.type())
            {
                case COUNTER:
                {
                    final CounterSnapshot.Builder builder = CounterSnapshot.builder()
                        .name(family.name()).help(family.help()).unit(family.unit());
                    for (final StreamAggregation.Sample sample : samples)
                    {
                        builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                            .labels(uniqueLabels(sample, occurrences)).value(sample.value()).build());
                    }
                    return builder.build();
                }
                case GAUGE:
                {
                    final GaugeSnapshot.Builder builder = GaugeSnapshot.builder()
                        .name(family.name()).help(family.help()).unit(family.unit());
                    for (final StreamAggregation.Sample sample : samples)
                    {
                        builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                            .labels(uniqueLabels(sample, occurrences)).value(sample.value()).build());
                    }
                    return builder.build();
                }
                default:
                {
                    final UnknownSnapshot.Builder builder = UnknownSnapshot.builder()
                        .name(family.name()).help(family.help()).unit(family.unit());
                    for (final StreamAggregation.Sample sample : samples)
                    {
                        builder.dataPoint(UnknownSnapshot.UnknownDataPointSnapshot.builder()
                            .labels(uniqueLabels(sample, occurrences)).value(sample.value()).build());
                    }
                    return builder.build();
                }
            }
        }

        private static Labels uniqueLabels(
            final StreamAggregation.Sample sample, final Map<Labels, Integer> occurrences)
        {
            return occurrences.get(sample.labels()) > 1 ?
                sample.labels().add("counter_id", Integer.toString(sample.counterId())) : sample.labels();
        }
    }
}
