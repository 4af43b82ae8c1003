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
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.driver.DriverVersion;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Prometheus exporter against an embedded driver carrying an IPC stream and a two-plane UDP stream over loopback:
 * scraped with a real HTTP client, the text format parsed strictly, every counter of the CnC file served under a
 * known family, and the values moving as messages flow. Threads park when idle; nothing asserts a time.
 */
class PrometheusExporterTest
{
    private static final int IPC_STREAM = 1001;
    private static final int UDP_STREAM = 1002;
    private static final int MESSAGE_LENGTH = 200;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final HttpClient httpClient = HttpClient.newHttpClient();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);

    @AfterEach
    void tearDown()
    {
        // Reverse order: exporter and client before the driver.
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }

    @Test
    void shouldServeEveryCounterInValidTextFormatAndShowValuesMove()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final MediaDriver driver = launchDriver(uniqueDirectory());
            final MetaRoce client = connect(driver);
            final int port = freePort();
            final String endpoints = "127.0.0.2:" + port + ",127.0.0.3:" + port;
            final Publication ipcPublication = client.addPublication("metaroce:ipc", IPC_STREAM);
            final Subscription ipcSubscription = client.addSubscription("metaroce:ipc", IPC_STREAM);
            final Subscription udpSubscription = client.addSubscription(
                "metaroce:udp?endpoint=" + endpoints + "|entropy=2", UDP_STREAM);
            final Publication udpPublication = client.addPublication(
                "metaroce:udp?endpoint=" + endpoints + "|interface=127.0.1.1,127.0.1.2|entropy=2|path-counters=true",
                UDP_STREAM);
            while (!udpPublication.isConnected() || !ipcPublication.isConnected() || !udpSubscription.isConnected())
            {
                TimeUnit.MILLISECONDS.sleep(1);
            }

            final PrometheusExporter exporter = startExporter(new File(driver.directoryName()));
            exchange(ipcPublication, ipcSubscription, 10);
            exchange(udpPublication, udpSubscription, 10);

            final int allocatedCounters = allocatedCounters(driver);
            final PrometheusText first = PrometheusText.parse(scrape(exporter));
            assertEquals(1.0, first.one("metaroce_up").value);
            assertEquals(allocatedCounters, countersServed(first), "every allocated counter is served");
            assertTrue(first.family("metaroce_unmapped_counter").isEmpty(), first.family("metaroce_unmapped_counter")
                .toString());
            assertLabelledTheSameWay(first, udpPublication.sessionId());

            exchange(ipcPublication, ipcSubscription, 50);
            exchange(udpPublication, udpSubscription, 50);
            final PrometheusText second = PrometheusText.parse(scrape(exporter));

            final String udpSession = Integer.toString(udpPublication.sessionId());
            final String senderConnection = first.one("metaroce_sender_stream_state", "session", udpSession)
                .labels.get("connection");
            final String receiverConnection = first.one("metaroce_receiver_stream_state", "session", udpSession)
                .labels.get("connection");
            assertIncreased(first, second, "metaroce_subscriber_position_bytes", "stream", "1001");
            assertIncreased(first, second, "metaroce_subscriber_position_bytes", "stream", "1002");
            assertIncreased(first, second, "metaroce_sender_data_bytes_total", "connection", senderConnection);
            assertIncreased(first, second, "metaroce_sender_data_packets_total", "connection", senderConnection);
            assertIncreased(first, second, "metaroce_receiver_data_bytes_total", "connection", receiverConnection);
            assertIncreased(first, second, "metaroce_engine_received_bytes_total", "agent", "receiver");
            assertIncreased(first, second, "metaroce_io_sent_datagrams_total", "agent", "sender");
            assertIncreased(first, second, "metaroce_io_send_calls_total", "agent", "sender");
            assertIncreased(first, second, "metaroce_io_received_datagrams_total", "agent", "receiver");
            assertTrue(sum(second, "metaroce_path_packets_total", "0") > sum(first, "metaroce_path_packets_total", "0"),
                "plane 0 carried packets");
            assertTrue(sum(second, "metaroce_path_packets_total", "1") > sum(first, "metaroce_path_packets_total", "1"),
                "plane 1 carried packets");
            final String planePackets = "metaroce_plane_packets_total";
            assertTrue(sum(second, planePackets, "0") > sum(first, planePackets, "0"), "the plane 0 total moved");
            assertTrue(sum(second, planePackets, "1") > sum(first, planePackets, "1"), "the plane 1 total moved");

            // The driver samples the publisher position on its own duty cycle: scrape until it shows the messages.
            final double ipcPosition = first.one(
                "metaroce_publisher_position_bytes", "stream", Integer.toString(IPC_STREAM)).value;
            PrometheusText latest = second;
            while (latest.one("metaroce_publisher_position_bytes", "stream", "1001").value <= ipcPosition)
            {
                TimeUnit.MILLISECONDS.sleep(10);
                latest = PrometheusText.parse(scrape(exporter));
            }
        });
    }

    @Test
    void shouldSumTheSeriesOfStreamsPerConnectionOrPerChannelWhenAggregated()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final MediaDriver driver = launchDriver(uniqueDirectory());
            final MetaRoce client = connect(driver);
            final int port = freePort();
            final String channel = "metaroce:udp?endpoint=127.0.0.2:" + port;
            final List<Publication> publications = new ArrayList<>();
            final List<Subscription> subscriptions = new ArrayList<>();
            for (final int streamId : new int[]{ UDP_STREAM, UDP_STREAM + 1 })
            {
                subscriptions.add(client.addSubscription(channel, streamId));
                publications.add(client.addPublication(channel, streamId));
            }
            final Publication ipcPublication = client.addPublication("metaroce:ipc", IPC_STREAM);
            final Subscription ipcSubscription = client.addSubscription("metaroce:ipc", IPC_STREAM);
            for (int i = 0; i < publications.size(); i++)
            {
                while (!publications.get(i).isConnected() || !subscriptions.get(i).isConnected())
                {
                    TimeUnit.MILLISECONDS.sleep(1);
                }
                exchange(publications.get(i), subscriptions.get(i), 10 + 10 * i);
            }
            exchange(ipcPublication, ipcSubscription, 5);

            // Subscriber positions move only when the subscriptions poll, so the three scrapes see the same ones.
            final File directory = new File(driver.directoryName());
            final PrometheusText perStream = PrometheusText.parse(scrape(startExporter(directory)));
            final PrometheusText perConnection = PrometheusText.parse(
                scrape(startExporter(directory, StreamAggregation.CONNECTION)));
            final PrometheusText perChannel = PrometheusText.parse(
                scrape(startExporter(directory, StreamAggregation.CHANNEL)));

            final String subscriber = "metaroce_subscriber_position_bytes";
            final double udpStreams = perStream.one(subscriber, "stream", "1002").value +
                perStream.one(subscriber, "stream", "1003").value;
            final String receiverConnection = perStream.one("metaroce_receiver_stream_state", "stream", "1002")
                .labels.get("connection");
            assertEquals(receiverConnection, perStream.one("metaroce_receiver_stream_state", "stream", "1003")
                .labels.get("connection"), "one connection carries both streams");
            final String senderConnection = perStream.one("metaroce_sender_stream_state", "stream", "1002")
                .labels.get("connection");
            for (final PrometheusText scrape : List.of(perStream, perConnection, perChannel))
            {
                assertEquals(2.0, scrape.one("metaroce_sender_streams", "connection", senderConnection,
                    "state", "ESTABLISHED").value);
                assertEquals(2.0, scrape.one("metaroce_receiver_streams", "connection", receiverConnection,
                    "state", "ESTABLISHED").value);
            }

            final PrometheusText.Sample connectionSum = perConnection.one(
                subscriber, "connection", receiverConnection);
            assertEquals(udpStreams, connectionSum.value);
            assertEquals(Set.of("agent", "connection", "endpoint"), connectionSum.labels.keySet());
            assertEquals(Map.of("channel", "metaroce:ipc"), perConnection.one(subscriber, "channel", "metaroce:ipc")
                .labels, "a stream no connection carries is summed by channel");
            assertEquals(2, perConnection.family(subscriber).size(), perConnection.family(subscriber).toString());
            assertEquals(1, perConnection.family("metaroce_publisher_position_bytes").stream()
                .filter((sample) -> senderConnection.equals(sample.labels.get("connection"))).count());

            final PrometheusText.Sample channelSum = perChannel.family(subscriber).stream()
                .filter((sample) -> sample.labels.get("channel").startsWith(channel + "|")).findFirst().orElseThrow();
            assertEquals(udpStreams, channelSum.value);
            assertEquals(Set.of("channel"), channelSum.labels.keySet());
            assertEquals(2, perChannel.family(subscriber).size(), perChannel.family(subscriber).toString());

            for (final PrometheusText aggregated : List.of(perConnection, perChannel))
            {
                assertTrue(aggregated.family("metaroce_sender_stream_state").isEmpty() &&
                    aggregated.family("metaroce_receiver_stream_state").isEmpty());
                for (final PrometheusText.Sample sample : aggregated.samples)
                {
                    assertTrue(!sample.labels.containsKey("stream") && !sample.labels.containsKey("session") &&
                        !sample.labels.containsKey("registration_id"), "no series of one stream: " + sample);
                }
            }
        });
    }

    @Test
    void shouldReportUpOnlyWhileTheDriverRuns()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final File directory = uniqueDirectory();
            final PrometheusExporter exporter = startExporter(directory);

            final PrometheusText before = PrometheusText.parse(scrape(exporter));
            assertEquals(0.0, before.one("metaroce_up").value);
            assertTrue(before.family("metaroce_errors_total").isEmpty(), "no driver, no counters");
            final PrometheusText.Sample build = before.one("metaroce_build_info");
            assertEquals(DriverVersion.version(), build.labels.get("version"));
            assertEquals(DriverVersion.commit(), build.labels.get("commit"));

            final MediaDriver driver = launchDriver(directory);
            final PrometheusText running = PrometheusText.parse(scrape(exporter));
            assertEquals(1.0, running.one("metaroce_up").value);
            assertEquals(0.0, running.one("metaroce_errors_total").value);
            assertEquals(Long.toString(ProcessHandle.current().pid()), running.one("metaroce_driver_info")
                .labels.get("pid"));

            driver.close();
            final PrometheusText after = PrometheusText.parse(scrape(exporter));
            assertEquals(0.0, after.one("metaroce_up").value);
            assertTrue(after.family("metaroce_errors_total").isEmpty(), "a stopped driver's counters are not served");

            final MediaDriver restarted = launchDriver(directory);
            final PrometheusText again = PrometheusText.parse(scrape(exporter));
            assertEquals(1.0, again.one("metaroce_up").value);
            assertTrue(again.one("metaroce_driver_start_timestamp_seconds").value >=
                running.one("metaroce_driver_start_timestamp_seconds").value);
            restarted.close();

            final String lines = log.toString(StandardCharsets.UTF_8);
            assertTrue(lines.contains("no media driver CnC file in " + directory), lines);
            assertTrue(lines.contains("in " + directory + " is live"), lines);
        });
    }

    @Test
    void shouldServeNoCountersWhenTheHeartbeatIsOlderThanTheDriverTimeout()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final MediaDriver driver = launchDriver(uniqueDirectory());
            final AtomicLong clockOffsetMs = new AtomicLong();
            final PrometheusExporter exporter = startExporter(
                new File(driver.directoryName()), () -> System.currentTimeMillis() + clockOffsetMs.get());
            assertEquals(1.0, PrometheusText.parse(scrape(exporter)).one("metaroce_up").value);

            // The driver seen from a clock a minute ahead: as if it had stopped heartbeating a minute ago.
            clockOffsetMs.set(TimeUnit.MINUTES.toMillis(1));
            final PrometheusText silent = PrometheusText.parse(scrape(exporter));
            assertEquals(0.0, silent.one("metaroce_up").value);
            assertEquals(1, silent.family("metaroce_driver_heartbeat_timestamp_seconds").size());
            assertTrue(silent.family("metaroce_errors_total").isEmpty(), "a silent driver's counters are not served");
            final String lines = log.toString(StandardCharsets.UTF_8);
            assertTrue(lines.contains(" is not live: heartbeat "), lines);

            clockOffsetMs.set(0);
            assertEquals(1.0, PrometheusText.parse(scrape(exporter)).one("metaroce_up").value);
        });
    }

    @Test
    void shouldTellApartCountersThatDecodeToTheSameSeries()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final MediaDriver driver = launchDriver(uniqueDirectory());
            final MetaRoce client = connect(driver);
            final String channel = "metaroce:udp?endpoint=127.0.0.2:" + freePort() + "|interface=127.0.1.1";
            // Two send endpoints on the same interface with different entropy: two sets of plane totals with the same
            // label, once each endpoint's publication has connected.
            client.addPublication(channel + "|entropy=2", UDP_STREAM);
            client.addPublication(channel + "|entropy=4", UDP_STREAM + 1);
            while (planeTotals(client) < 2)
            {
                TimeUnit.MILLISECONDS.sleep(1);
            }
            client.addCounter(CounterTypeId.MIN_CUSTOM_TYPE_ID, "orders");
            client.addCounter(CounterTypeId.MIN_CUSTOM_TYPE_ID, "orders");

            final PrometheusText scrape = PrometheusText.parse(scrape(startExporter(new File(driver.directoryName()))));
            final List<PrometheusText.Sample> planes = scrape.family("metaroce_plane_packets_total");
            assertEquals(2, planes.size(), planes.toString());
            for (final PrometheusText.Sample plane : planes)
            {
                assertEquals("127.0.1.1", plane.labels.get("interface"));
                assertTrue(plane.labels.containsKey("counter_id"), plane.toString());
            }
            final List<PrometheusText.Sample> custom = scrape.family("metaroce_custom_counter");
            assertEquals(2, custom.size(), custom.toString());
            assertEquals("orders", custom.get(0).labels.get("label"));
            assertEquals("untyped", scrape.typeByFamily.get("metaroce_custom_counter"));
        });
    }

    @Test
    void shouldServeScrapeWhenThirtyTwoClientsHoldHalfSentRequests()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final MediaDriver driver = launchDriver(uniqueDirectory());
            final PrometheusExporter exporter = startExporter(new File(driver.directoryName()));
            assertEquals(32, PrometheusExporter.DEFAULT_MAX_CONNECTIONS, "the slow clients take up the default bound");
            for (int i = 0; i < 32; i++)
            {
                final Socket socket = new Socket(InetAddress.getLoopbackAddress(), exporter.port());
                resources.add(socket);
                // Half of them stop in the request line, half in the headers.
                final String partial = i % 2 == 0 ? "GET /metr" : "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
                socket.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
            }

            // Well inside the 2 s read timeout that would free the slow clients' slots anyway.
            final PrometheusText scrape = PrometheusText.parse(scrape(exporter, Duration.ofMillis(1500)));
            assertEquals(1.0, scrape.one("metaroce_up").value);
        });
    }

    @Test
    void shouldPrintUsageAndExitZeroForHelpAndTwoForBadOption() throws IOException, InterruptedException
    {
        final Run help = runMain("--help");
        assertEquals(0, help.exitCode, help.output);
        assertTrue(help.output.contains("usage: ./metaroce exporter [--port <n>] [--bind <address>]"), help.output);
        assertTrue(help.output.contains("--read-timeout <ms>") && help.output.contains("--idle-timeout <ms>") &&
            help.output.contains("--max-connections <n>") && help.output.contains("--aggregate <level>"), help.output);

        final Run badPort = runMain("--port", "70000");
        assertEquals(2, badPort.exitCode, badPort.output);
        assertTrue(badPort.output.contains("--port must be a TCP port from 0 to 65535, not '70000'"), badPort.output);

        final Run badReadTimeout = runMain("--read-timeout", "0");
        assertEquals(2, badReadTimeout.exitCode, badReadTimeout.output);
        assertTrue(badReadTimeout.output.contains(
            "--read-timeout must be a number of milliseconds from 1 to 3600000, not '0'"), badReadTimeout.output);

        final Run badIdleTimeout = runMain("--idle-timeout", "5s");
        assertEquals(2, badIdleTimeout.exitCode, badIdleTimeout.output);
        assertTrue(badIdleTimeout.output.contains(
            "--idle-timeout must be a number of milliseconds from 1 to 3600000, not '5s'"), badIdleTimeout.output);

        final Run badMaxConnections = runMain("--max-connections", "5000");
        assertEquals(2, badMaxConnections.exitCode, badMaxConnections.output);
        assertTrue(badMaxConnections.output.contains(
            "--max-connections must be a number of connections from 1 to 1024, not '5000'"), badMaxConnections.output);

        final Run badAggregate = runMain("--aggregate", "session");
        assertEquals(2, badAggregate.exitCode, badAggregate.output);
        assertTrue(badAggregate.output.contains(
            "--aggregate must be stream, connection or channel, not 'session'"), badAggregate.output);

        final Run unknown = runMain("--prot", "9000");
        assertEquals(2, unknown.exitCode, unknown.output);
        assertTrue(unknown.output.contains("unknown or incomplete option '--prot'"), unknown.output);
    }

    private static Run runMain(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PrometheusExporter.class.getName());
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        return new Run(process.waitFor(), output);
    }

    private static final class Run
    {
        final int exitCode;
        final String output;

        Run(final int exitCode, final String output)
        {
            this.exitCode = exitCode;
            this.output = output;
        }
    }

    private static int planeTotals(final MetaRoce client)
    {
        final int[] count = new int[1];
        client.countersReader().forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("plane-packets: "))
            {
                count[0]++;
            }
        });

        return count[0];
    }

    private void assertLabelledTheSameWay(final PrometheusText scrape, final int udpSessionId)
    {
        final String session = Integer.toString(udpSessionId);
        assertEquals("metaroce:ipc", scrape.one("metaroce_publisher_limit_bytes", "stream", "1001")
            .labels.get("channel"));
        assertTrue(scrape.one("metaroce_subscriber_position_bytes", "stream", "1002", "session", session)
            .labels.get("channel").startsWith("metaroce:udp?endpoint="));
        // A stream's state names its stream, session and connection; a connection's counters name the connection
        // and its endpoints only, since it may carry many streams.
        final PrometheusText.Sample senderStream = scrape.one(
            "metaroce_sender_stream_state", "stream", "1002", "session", session);
        final PrometheusText.Sample receiverStream = scrape.one(
            "metaroce_receiver_stream_state", "stream", "1002", "session", session);
        assertEquals(2.0, senderStream.value, "ESTABLISHED");
        assertEquals(2.0, receiverStream.value, "ESTABLISHED");
        assertEquals("sender", senderStream.labels.get("agent"));
        assertEquals("127.0.1.1,127.0.1.2", senderStream.labels.get("interface"));
        final PrometheusText.Sample senderState = scrape.one(
            "metaroce_sender_state", "connection", senderStream.labels.get("connection"));
        final PrometheusText.Sample receiverState = scrape.one(
            "metaroce_receiver_state", "connection", receiverStream.labels.get("connection"));
        assertEquals(2.0, senderState.value, "ESTABLISHED");
        assertEquals(2.0, receiverState.value, "ESTABLISHED");
        assertEquals("127.0.1.1,127.0.1.2", senderState.labels.get("interface"));
        assertEquals(senderStream.labels.get("endpoint"), senderState.labels.get("endpoint"));
        assertEquals(receiverStream.labels.get("endpoint"), receiverState.labels.get("endpoint"));
        assertTrue(!senderState.labels.containsKey("stream") && !senderState.labels.containsKey("session") &&
            !receiverState.labels.containsKey("session"), "a connection names no stream: " + senderState);
        assertEquals(4, scrape.family("metaroce_path_state").size(), "2 planes x entropy 2");
        assertEquals(1.0, scrape.one("metaroce_path_state", "path", "3", "plane", "1").value, "ACTIVE");
        assertTrue(scrape.one("metaroce_sender_srtt_seconds", "connection", senderStream.labels.get("connection"))
            .value < 1.0, "seconds, not ns");
        final double connectSeconds = scrape.one(
            "metaroce_sender_connect_seconds", "connection", senderStream.labels.get("connection")).value;
        assertTrue(connectSeconds > 0 && connectSeconds < 1.0, "set at establishment, in seconds: " + connectSeconds);
        assertTrue(scrape.one("metaroce_engine_dropped_datagrams_total", "reason", "DUPLICATE",
            "agent", "receiver").value >= 0);
        assertEquals(2, scrape.family("metaroce_engine_sent_datagrams_total").size(), "the sender's and receiver's");
        assertEquals(7, scrape.family("metaroce_sender_retransmits_by_reason_total").size(), "one per loss reason");
        assertEquals(3, scrape.family("metaroce_agent_max_cycle_time_seconds").size());
        assertEquals(1.0, scrape.one("metaroce_endpoints_open", "direction", "send").value);
        assertEquals(1.0, scrape.one("metaroce_endpoints_open", "direction", "receive").value);
        assertEquals(1, scrape.family("metaroce_client_heartbeat_timestamp_seconds").size());
        for (final PrometheusText.Sample sample : scrape.samples)
        {
            assertTrue(sample.name.startsWith("metaroce_"), sample.toString());
            assertTrue(!sample.labels.containsKey("label") && !sample.labels.containsKey("counter_id"),
                "every driver counter's label parses into labels: " + sample);
        }
        scrape.typeByFamily.forEach((name, type) -> assertTrue(
            !"counter".equals(type) || name.endsWith("_total"), name));
    }

    private static void assertIncreased(
        final PrometheusText before, final PrometheusText after, final String name, final String... labels)
    {
        final double was = before.one(name, labels).value;
        final double is = after.one(name, labels).value;
        assertTrue(is > was, name + " " + String.join(",", labels) + ": " + was + " then " + is);
    }

    private static double sum(final PrometheusText scrape, final String name, final String plane)
    {
        double sum = 0;
        for (final PrometheusText.Sample sample : scrape.family(name))
        {
            sum += plane.equals(sample.labels.get("plane")) ? sample.value : 0;
        }

        return sum;
    }

    private static int countersServed(final PrometheusText scrape)
    {
        int served = 0;
        for (final PrometheusText.Sample sample : scrape.samples)
        {
            served += sample.name.startsWith("metaroce_up") || sample.name.startsWith("metaroce_driver_") ||
                sample.name.startsWith("metaroce_build_") || sample.name.endsWith("_streams") ? 0 : 1;
        }

        return served;
    }

    private static int allocatedCounters(final MediaDriver driver)
    {
        final AtomicInteger count = new AtomicInteger();
        try (CncFile cncFile = CncFile.mapExisting(new File(driver.directoryName()), true))
        {
            cncFile.newCountersReader().forEach((counterId, typeId, keyBuffer, label) -> count.incrementAndGet());
        }

        return count.get();
    }

    private void exchange(final Publication publication, final Subscription subscription, final int messages)
        throws InterruptedException
    {
        final AtomicInteger received = new AtomicInteger();
        int sent = 0;
        while (received.get() < messages)
        {
            if (sent < messages && publication.offer(message, 0, MESSAGE_LENGTH) > 0)
            {
                sent++;
            }
            if (0 == subscription.poll((buffer, offset, length, header) -> received.incrementAndGet(), 10))
            {
                TimeUnit.MICROSECONDS.sleep(100);
            }
        }
    }

    private String scrape(final PrometheusExporter exporter) throws IOException, InterruptedException
    {
        return scrape(exporter, Duration.ofSeconds(30));
    }

    private String scrape(final PrometheusExporter exporter, final Duration timeout)
        throws IOException, InterruptedException
    {
        final HttpResponse<String> response = httpClient.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + exporter.port() + "/metrics"))
                .timeout(timeout).GET().build(),
            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertEquals(200, response.statusCode(), response.body());
        final String contentType = response.headers().firstValue("Content-Type").orElse("");
        assertTrue(contentType.startsWith("text/plain") && contentType.contains("version=0.0.4"), contentType);

        return response.body();
    }

    private PrometheusExporter startExporter(final File directory) throws IOException
    {
        return startExporter(directory, SystemEpochClock.INSTANCE);
    }

    private PrometheusExporter startExporter(final File directory, final StreamAggregation aggregation)
        throws IOException
    {
        final PrometheusExporter exporter = PrometheusExporter.start(directory, InetAddress.getLoopbackAddress(), 0,
            PrometheusExporter.DEFAULT_READ_TIMEOUT_MS, PrometheusExporter.DEFAULT_IDLE_TIMEOUT_MS,
            PrometheusExporter.DEFAULT_MAX_CONNECTIONS, aggregation, SystemEpochClock.INSTANCE,
            new PrintStream(log, true, StandardCharsets.UTF_8));
        resources.add(exporter);
        return exporter;
    }

    private PrometheusExporter startExporter(final File directory, final EpochClock epochClock) throws IOException
    {
        final PrometheusExporter exporter = PrometheusExporter.start(directory, InetAddress.getLoopbackAddress(), 0,
            epochClock, new PrintStream(log, true, StandardCharsets.UTF_8));
        resources.add(exporter);
        return exporter;
    }

    private MediaDriver launchDriver(final File directory)
    {
        final MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
            .directoryName(directory.getPath())
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100)))
            .ipcTermLength(64 * 1024)
            .termSparseFile(true)
            .toDriverBufferLength(64 * 1024)
            .toClientsBufferLength(64 * 1024)
            .countersBufferLength(256 * 1024)
            .errorBufferLength(64 * 1024));
        resources.add(driver);
        return driver;
    }

    private MetaRoce connect(final MediaDriver driver)
    {
        final MetaRoce client = MetaRoce.connect(new MetaRoce.Context()
            .directoryName(driver.directoryName())
            .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1))));
        resources.add(client);
        return client;
    }

    private static File uniqueDirectory()
    {
        final String base = new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir");
        return new File(base, "metaroce-exporter-test-" + UUID.randomUUID());
    }

    /**
     * A UDP port free on both loopback planes the stream uses.
     */
    private static int freePort() throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try (DatagramSocket first = new DatagramSocket(
                new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0)))
            {
                // The port must also be free on the second plane's address.
                final int port = first.getLocalPort();
                final DatagramSocket second = new DatagramSocket(
                    new InetSocketAddress(InetAddress.getByName("127.0.0.3"), port));
                second.close();
                return port;
            }
            catch (final IOException ex)
            {
                continue;
            }
        }

        throw new IOException("no UDP port free on 127.0.0.2 and 127.0.0.3");
    }
}
