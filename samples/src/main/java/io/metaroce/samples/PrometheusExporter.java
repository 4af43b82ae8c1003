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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ConfigurationException;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.SystemEpochClock;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * Serves every counter of a running media driver over HTTP in the Prometheus text format, read from its CnC file on
 * each scrape (see {@link DriverMetricsCollector}): {@code ./metaroce exporter [--port PORT] [--bind ADDRESS]}.
 * The metric names, types and labels are listed in {@code docs/driver.md} ("Metrics").
 * <p>
 * Its HTTP server (see {@link MetricsHttpServer}) serves from one thread over non-blocking sockets with a read timeout,
 * an idle timeout and a bound on open connections, so clients that send slowly or hold connections open cannot keep
 * a scrape waiting.
 * <p>
 * It listens on 127.0.0.1 unless told otherwise: the endpoint has no authentication and shows the host's channels,
 * addresses and streams, so serving it beyond the host is a choice to make explicitly with {@code --bind}.
 * The directory is {@code metaroce.dir} or the default one; the driver may start, stop and restart while the
 * exporter runs.
 */
public final class PrometheusExporter implements AutoCloseable
{
    /**
     * Port served unless {@code --port} says otherwise.
     */
    public static final int DEFAULT_PORT = 9464;

    /**
     * Address listened on unless {@code --bind} says otherwise: the local host only.
     */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

    /**
     * Milliseconds a request's line and headers have to arrive unless {@code --read-timeout} says otherwise.
     */
    public static final long DEFAULT_READ_TIMEOUT_MS = 2_000;

    /**
     * Milliseconds a keep-alive connection may wait for its next request unless {@code --idle-timeout} says
     * otherwise.
     */
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 30_000;

    /**
     * Connections open at once unless {@code --max-connections} says otherwise.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 32;

    private static final long MAX_TIMEOUT_MS = 3_600_000;
    private static final int MAX_CONNECTIONS = 1024;

    private static final String USAGE =
        "usage: ./metaroce exporter [--port <n>] [--bind <address>] [--read-timeout <ms>] [--idle-timeout <ms>]\n" +
        "                           [--max-connections <n>] [--aggregate stream|connection|channel] [--help]\n" +
        "Serves the counters of the media driver in metaroce.dir (" + MetaRoce.Configuration.DIR_PROP_NAME +
        "=" + MetaRoce.Configuration.directoryName() + ")\n" +
        "at http://<address>:<port>/metrics in the Prometheus text format.\n" +
        "  --port <n>              TCP port, 0 for any free one (default " + DEFAULT_PORT + ")\n" +
        "  --bind <address>        local address to listen on (default " + DEFAULT_BIND_ADDRESS +
        ", this host only;\n" +
        "                          0.0.0.0 serves every interface: the endpoint has no authentication)\n" +
        "  --read-timeout <ms>     close a connection whose request line and headers have not arrived this\n" +
        "                          long after it opened, or after their first byte (default " +
        DEFAULT_READ_TIMEOUT_MS + ")\n" +
        "  --idle-timeout <ms>     close a kept-alive connection without a new request this long (default " +
        DEFAULT_IDLE_TIMEOUT_MS + ")\n" +
        "  --max-connections <n>   connections open at once; one more closes the open one that has waited\n" +
        "                          longest, so slow clients cannot lock a scrape out (default " +
        DEFAULT_MAX_CONNECTIONS + ")\n" +
        "  --aggregate <level>     serve the position series of each stream (stream), or their sums per\n" +
        "                          connection (connection) or per channel (channel); fewer series for many\n" +
        "                          streams (default stream)\n" +
        "  --help                  print this and exit";

    private final DriverMetricsCollector collector;
    private final MetricsHttpServer server;

    private record Options(
        String bind,
        int port,
        long readTimeoutMs,
        long idleTimeoutMs,
        int maxConnections,
        StreamAggregation aggregation)
    {
    }

    private PrometheusExporter(final DriverMetricsCollector collector, final MetricsHttpServer server)
    {
        this.collector = collector;
        this.server = server;
    }

    /**
     * Start serving the counters of the driver of a directory with the default timeouts and connection bound. The
     * driver need not be running yet.
     *
     * @param directory   of the driver.
     * @param bindAddress local address to listen on.
     * @param port        TCP port, 0 for any free one.
     * @param epochClock  to age the driver's heartbeat.
     * @param log         to print a line to when the driver appears, goes or cannot be read.
     * @return the running exporter.
     * @throws IOException            if the address cannot be listened on.
     * @throws ConfigurationException if this process may not read the driver's CnC file.
     * @throws IllegalStateException  if the CnC file has an incompatible version.
     */
    public static PrometheusExporter start(
        final File directory,
        final InetAddress bindAddress,
        final int port,
        final EpochClock epochClock,
        final PrintStream log) throws IOException
    {
        return start(directory, bindAddress, port, DEFAULT_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS,
            DEFAULT_MAX_CONNECTIONS, StreamAggregation.STREAM, epochClock, log);
    }

    /**
     * Start serving the counters of the driver of a directory. The driver need not be running yet.
     *
     * @param directory      of the driver.
     * @param bindAddress    local address to listen on.
     * @param port           TCP port, 0 for any free one.
     * @param readTimeoutMs  time a request's line and headers have to arrive, from the connection's accept or from
     *                       the request's first byte on a keep-alive connection.
     * @param idleTimeoutMs  time a keep-alive connection may wait for its next request.
     * @param maxConnections open at once; one more replaces the open one that has waited longest.
     * @param aggregation    of the series of streams: each stream's, or their sums per connection or per channel.
     * @param epochClock     to age the driver's heartbeat.
     * @param log            to print a line to when the driver appears, goes or cannot be read.
     * @return the running exporter.
     * @throws IOException              if the address cannot be listened on.
     * @throws IllegalArgumentException if a timeout or the connection bound is not positive.
     * @throws ConfigurationException   if this process may not read the driver's CnC file.
     * @throws IllegalStateException    if the CnC file has an incompatible version.
     */
    public static PrometheusExporter start(
        final File directory,
        final InetAddress bindAddress,
        final int port,
        final long readTimeoutMs,
        final long idleTimeoutMs,
        final int maxConnections,
        final StreamAggregation aggregation,
        final EpochClock epochClock,
        final PrintStream log) throws IOException
    {
        final DriverMetricsCollector collector = new DriverMetricsCollector(
            directory, TimeUnit.NANOSECONDS.toMillis(MetaRoce.Configuration.driverTimeoutNs()), epochClock,
            aggregation, log);
        try
        {
            collector.mapIfPresent();
            final PrometheusRegistry registry = new PrometheusRegistry();
            registry.register(collector);
            final MetricsHttpServer server = MetricsHttpServer.start(
                bindAddress, port, registry, readTimeoutMs, idleTimeoutMs, maxConnections, log);

            return new PrometheusExporter(collector, server);
        }
        catch (final IOException | RuntimeException ex)
        {
            collector.close();
            throw ex;
        }
    }

    /**
     * The port the exporter listens on.
     *
     * @return the TCP port, the one chosen when started with 0.
     */
    public int port()
    {
        return server.port();
    }

    /**
     * Stop serving and unmap the CnC file.
     */
    public void close()
    {
        server.close();
        collector.close();
    }

    /**
     * Run the exporter until SIGINT or SIGTERM.
     *
     * @param args {@code --port PORT}, {@code --bind ADDRESS}, {@code --read-timeout MS}, {@code --idle-timeout MS},
     *             {@code --max-connections N}, {@code --aggregate stream|connection|channel}, {@code --help}.
     */
    public static void main(final String[] args)
    {
        final Options options = parse(args);
        final String bind = options.bind();
        final int port = options.port();
        final File directory = new File(MetaRoce.Configuration.directoryName());
        final PrometheusExporter exporter;
        try
        {
            exporter = start(directory, bindAddress(bind), port, options.readTimeoutMs(), options.idleTimeoutMs(),
                options.maxConnections(), options.aggregation(), SystemEpochClock.INSTANCE, System.out);
        }
        catch (final IOException ex)
        {
            System.err.println("metaroce: the exporter cannot start: cannot listen on " + bind + ":" + port + " (" +
                ex + "); choose another --port or --bind");
            System.exit(1);
            return;
        }
        catch (final ConfigurationException | IllegalStateException ex)
        {
            System.err.println("metaroce: the exporter cannot start: " + ex.getMessage());
            System.exit(1);
            return;
        }

        try (ShutdownSignalBarrier barrier = new ShutdownSignalBarrier())
        {
            final String host = bind.indexOf(':') >= 0 ? "[" + bind + "]" : bind;
            System.out.println("metaroce exporter: serving http://" + host + ":" + exporter.port() + "/metrics for " +
                MetaRoce.Configuration.DIR_PROP_NAME + "=" + directory + ", streams aggregated per " +
                options.aggregation().optionValue());
            barrier.await();
        }
        finally
        {
            exporter.close();
        }
    }

    private static Options parse(final String[] args)
    {
        int port = DEFAULT_PORT;
        String bind = DEFAULT_BIND_ADDRESS;
        long readTimeoutMs = DEFAULT_READ_TIMEOUT_MS;
        long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
        int maxConnections = DEFAULT_MAX_CONNECTIONS;
        StreamAggregation aggregation = StreamAggregation.STREAM;
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if ("--help".equals(arg) || "-h".equals(arg))
            {
                System.out.println(USAGE);
                System.exit(0);
            }
            else if (i + 1 < args.length && "--port".equals(arg))
            {
                port = parsePort(args[++i]);
            }
            else if (i + 1 < args.length && "--bind".equals(arg))
            {
                bind = args[++i];
            }
            else if (i + 1 < args.length && "--read-timeout".equals(arg))
            {
                readTimeoutMs = parseRange(arg, args[++i], MAX_TIMEOUT_MS, "milliseconds");
            }
            else if (i + 1 < args.length && "--idle-timeout".equals(arg))
            {
                idleTimeoutMs = parseRange(arg, args[++i], MAX_TIMEOUT_MS, "milliseconds");
            }
            else if (i + 1 < args.length && "--max-connections".equals(arg))
            {
                maxConnections = (int)parseRange(arg, args[++i], MAX_CONNECTIONS, "connections");
            }
            else if (i + 1 < args.length && "--aggregate".equals(arg))
            {
                aggregation = parseAggregation(args[++i]);
            }
            else
            {
                usageError("unknown or incomplete option '" + arg + "'");
            }
        }

        return new Options(bind, port, readTimeoutMs, idleTimeoutMs, maxConnections, aggregation);
    }

    private static StreamAggregation parseAggregation(final String value)
    {
        final StreamAggregation aggregation = StreamAggregation.fromOptionValue(value);
        if (null == aggregation)
        {
            usageError("--aggregate must be stream, connection or channel, not '" + value + "'");
        }

        return aggregation;
    }

    private static long parseRange(final String option, final String value, final long max, final String unit)
    {
        try
        {
            final long parsed = Long.parseLong(value);
            if (parsed >= 1 && parsed <= max)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // reported below with the value
        }

        usageError(option + " must be a number of " + unit + " from 1 to " + max + ", not '" + value + "'");
        return -1;
    }

    private static int parsePort(final String value)
    {
        try
        {
            final int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535)
            {
                return port;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // reported below with the value
        }

        usageError("--port must be a TCP port from 0 to 65535, not '" + value + "'");
        return -1;
    }

    private static InetAddress bindAddress(final String bind)
    {
        try
        {
            return InetAddress.getByName(bind);
        }
        catch (final UnknownHostException ex)
        {
            usageError("--bind: unknown address '" + bind + "'");
            return null;
        }
    }

    private static void usageError(final String message)
    {
        System.err.println("metaroce exporter: " + message);
        System.err.println(USAGE);
        System.exit(2);
    }
}
