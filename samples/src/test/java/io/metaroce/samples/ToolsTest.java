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
import io.metaroce.driver.MediaDriver;
import io.metaroce.test.EmbeddedDriver;
import io.metaroce.test.MetaRoceExtension;
import io.metaroce.driver.ThreadingMode;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator tools against a real embedded driver ({@link MetaRoceExtension}: SHARED threading, sleeping idle)
 * carrying an IPC stream and a two-plane network stream over loopback, published and subscribed in the same driver:
 * {@code stat}'s filters and state names, {@code streams} and {@code backlog} positions, and the publisher and
 * subscriber options. Tools run in-process through their {@code run} methods.
 */
class ToolsTest
{
    private static final int IPC_STREAM = 3001;
    private static final int NET_STREAM = 3002;

    @RegisterExtension
    final MetaRoceExtension metaroce = new MetaRoceExtension()
        .driverSettings((ctx) -> ctx.countersBufferLength(1024 * 1024).toDriverBufferLength(1024 * 1024)
            .toClientsBufferLength(1024 * 1024));

    private EmbeddedDriver driver;
    private MetaRoce client;
    private String networkChannel;

    @BeforeEach
    void setUp(final EmbeddedDriver driver)
    {
        this.driver = driver;
        client = driver.client();
        final int port = freePort();
        networkChannel = "metaroce:udp?endpoint=127.0.0.2:" + port + ",127.0.0.3:" + port;
    }

    @Test
    void shouldPrintNetworkStreamCountersWithStateNamesAndFilters()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            try (Subscription ipcSubscription = client.addSubscription("metaroce:ipc", IPC_STREAM);
                Publication ipcPublication = client.addPublication("metaroce:ipc", IPC_STREAM);
                Subscription subscription = client.addSubscription(networkChannel, NET_STREAM);
                Publication publication = client.addPublication(
                    networkChannel + "|interface=127.0.1.1,127.0.1.2|path-counters=true", NET_STREAM))
            {
                awaitConnected(publication, subscription);
                awaitConnected(ipcPublication, ipcSubscription);
                exchange(publication, subscription, 10);

                final String all = run(MetaRoceStat::run, "--once");
                assertTrue(all.contains("ESTABLISHED"), all);
                assertTrue(all.contains("ACTIVE"), all);
                assertTrue(all.contains("stream=" + NET_STREAM), all);
                assertTrue(all.contains(" " + IPC_STREAM + " metaroce:ipc"), all);

                final String network = run(MetaRoceStat::run, "--once", "--stream", Integer.toString(NET_STREAM));
                assertFalse(network.contains(" " + IPC_STREAM + " metaroce:ipc"), network);
                assertFalse(network.contains("client-heartbeat"), network);
                assertTrue(network.contains("net-path") && network.contains("snd-ack-pos") &&
                    network.contains("rcv-hwm"), network);
                assertTrue(counterLines(network) < counterLines(all), network);

                final String nonZero = run(
                    MetaRoceStat::run, "--once", "--stream", Integer.toString(NET_STREAM), "--non-zero");
                assertTrue(counterLines(nonZero) < counterLines(network), nonZero);
                assertFalse(Pattern.compile("(?m)^ *\\d+: +0  ").matcher(nonZero).find(), nonZero);

                final String paths = run(MetaRoceStat::run, "--once", "--type", "net-path");
                for (final String line : counterLineList(paths))
                {
                    assertTrue(line.contains("net-path "), line);
                }
                assertTrue(paths.contains("path-state: ") && paths.contains("ACTIVE"), paths);

                final String byChannel = run(MetaRoceStat::run, "--once", "--channel", "127.0.0.2:");
                assertTrue(byChannel.contains("net-sender") && byChannel.contains("net-receiver") &&
                    byChannel.contains("sub-pos"), byChannel);
                assertFalse(byChannel.contains("metaroce:ipc"), byChannel);

                final String compact = run(
                    MetaRoceStat::run, "--once", "--compact", "--stream", Integer.toString(NET_STREAM));
                assertTrue(compact.contains(" state=ESTABLISHED"), compact);
                assertTrue(compact.lines().count() < counterLines(network) / 2, compact);

                final String session = run(MetaRoceStat::run, "--once", "--session",
                    Integer.toString(publication.sessionId()), "--type", "pub-pos,snd-ack-pos");
                assertEquals(2, counterLines(session), session);

                // A connection's counters name no stream (it may carry many); the streams' state counters name both.
                final String streamStates = run(MetaRoceStat::run, "--once", "--type",
                    "net-sender-stream,net-receiver-stream");
                assertEquals(2, counterLines(streamStates), streamStates);
                for (final String line : counterLineList(streamStates))
                {
                    assertTrue(line.contains("ESTABLISHED") && line.contains(" stream=" + NET_STREAM + " session=" +
                        publication.sessionId() + " "), line);
                }
                final String connections = run(MetaRoceStat::run, "--once", "--type", "net-sender,net-receiver");
                for (final String line : counterLineList(connections))
                {
                    assertTrue(line.contains(" conn=") && !line.contains(" stream="), line);
                }

                final String senderConnection = group(all, "snd-state: conn=([0-9a-f]+) ");
                final String byConnection = run(MetaRoceStat::run, "--once", "--connection", senderConnection);
                assertTrue(byConnection.contains("snd-state: conn=" + senderConnection) &&
                    byConnection.contains("snd-stream-state: conn=" + senderConnection) &&
                    byConnection.contains("path-state: conn=" + senderConnection) &&
                    byConnection.contains("snd-ack-pos"),
                    byConnection);
                // the receiving side's connection (in this driver too) is another one; the stream's positions are
                // the stream's, so its rcv-hwm is there
                assertFalse(byConnection.contains("rcv-state") || byConnection.contains("rcv-stream-state") ||
                    byConnection.contains("metaroce:ipc"), byConnection);
                assertEquals(ToolArguments.EXIT_USAGE, status(MetaRoceStat::run, "--connection", "xyz"));

                assertEquals(ToolArguments.EXIT_USAGE, status(MetaRoceStat::run, "--type", "nonsense"));
                assertEquals(ToolArguments.EXIT_USAGE, status(MetaRoceStat::run, "--bogus"));
            }
        });
    }

    @Test
    void shouldMarkADriverThatNoLongerHeartbeatsAsNotLive() throws IOException
    {
        final String directory = driver.directoryName() + "-stopped";
        try
        {
            MediaDriver.launch(new MediaDriver.Context()
                .directoryName(directory)
                .dirDeleteOnShutdown(false)
                .threadingMode(ThreadingMode.SHARED)
                .countersBufferLength(64 * 1024)
                .errorBufferLength(64 * 1024)).close();
            final CncFile cnc = CncFile.mapExisting(new File(directory), false);
            try
            {
                // the driver's last heartbeat, aged past any client's driver timeout
                new ManyToOneRingBuffer(cnc.toDriverBuffer()).consumerHeartbeatTime(System.currentTimeMillis() -
                    TimeUnit.NANOSECONDS.toMillis(MetaRoce.Configuration.driverTimeoutNs()) - 1000);
            }
            finally
            {
                cnc.close();
            }

            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            assertEquals(ToolArguments.EXIT_OK, MetaRoceStat.run(new String[]{"--once", "--dir", directory}, out, out));
            final String text = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.lines().findFirst().orElseThrow().contains("NOT LIVE"), text);
            assertFalse(run(MetaRoceStat::run, "--once").lines().findFirst().orElseThrow().contains("NOT LIVE"));
        }
        finally
        {
            IoUtil.delete(new File(directory), true);
        }
    }

    @Test
    void shouldShowStreamPositionsAndBacklogThatMoveWithPublishing()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            try (Subscription ipcSubscription = client.addSubscription("metaroce:ipc", IPC_STREAM);
                Publication ipcPublication = client.addPublication("metaroce:ipc", IPC_STREAM);
                Subscription subscription = client.addSubscription(networkChannel, NET_STREAM);
                Publication publication = client.addPublication(
                    networkChannel + "|interface=127.0.1.1,127.0.1.2", NET_STREAM))
            {
                awaitConnected(publication, subscription);
                awaitConnected(ipcPublication, ipcSubscription);
                final String before = run(StreamStat::run, "--once", "--stream", Integer.toString(NET_STREAM));
                assertTrue(before.contains("stream " + NET_STREAM + " session " + publication.sessionId()), before);
                assertTrue(before.contains("1 stream sessions"), before);
                final long subscriberBefore = number(before, "sub-pos (\\d+)");

                final long published = exchange(publication, subscription, 20);
                exchange(ipcPublication, ipcSubscription, 5);
                final String after = await((text) -> text.contains("pub-pos " + published + " "), StreamStat::run);
                assertTrue(after.contains("rcv-hwm " + published), after);
                assertTrue(after.contains("sub-pos " + published + " lag 0"), after);
                assertTrue(published > subscriberBefore, after);
                awaitSenderPosition(published);
                final String acknowledged = run(StreamStat::run, "--once", "--stream", Integer.toString(NET_STREAM));
                assertTrue(acknowledged.contains("snd-ack-pos " + published + " unsent 0"), acknowledged);
                assertTrue(Pattern.compile("(?m)^  sender stream conn=[0-9a-f]+: ESTABLISHED$").matcher(acknowledged)
                    .find(), acknowledged);
                assertTrue(Pattern.compile("(?m)^  receiver stream conn=[0-9a-f]+: ESTABLISHED$").matcher(acknowledged)
                    .find(), acknowledged);

                final String ipc = run(StreamStat::run, "--once", "--channel", "metaroce:ipc");
                assertTrue(ipc.contains("stream " + IPC_STREAM) && !ipc.contains("stream " + NET_STREAM), ipc);
                assertTrue(ipc.contains(" lag 0"), ipc);

                final String backlog = run(BacklogStat::run, "--once");
                assertTrue(backlog.contains("sender backlog 0 (publication " + publication.registrationId() +
                    ": pub-pos " + published + " - snd-ack-pos " + published + ")"), backlog);
                assertTrue(backlog.contains("receiver backlog 0 (subscription " + subscription.registrationId() +
                    ": rcv-hwm " + published + " - sub-pos " + published + ")"), backlog);
                assertTrue(backlog.contains("subscriber backlog 0 (subscription " +
                    ipcSubscription.registrationId() + ": pub-pos "), backlog);

                publish(publication, 5);
                final long receiverHwm = awaitReceiverHwmBeyond(published);
                final String behind = run(BacklogStat::run, "--once", "--stream", Integer.toString(NET_STREAM));
                assertTrue(behind.contains("receiver backlog " + (receiverHwm - published) + " (subscription " +
                    subscription.registrationId() + ": rcv-hwm " + receiverHwm + " - sub-pos " + published + ")"),
                    behind);
            }
        });
    }

    @Test
    void shouldDeliverExactlyTheCountAndLengthThePublisherIsGiven()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final ByteArrayOutputStream subscriberBytes = new ByteArrayOutputStream();
            final PrintStream subscriberOut = new PrintStream(subscriberBytes, true, StandardCharsets.UTF_8);
            final AtomicInteger subscriberStatus = new AtomicInteger(-1);
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread subscriber = new Thread(() -> subscriberStatus.set(BasicSubscriber.run(new String[]{
                "--dir", driver.directoryName(), "--channel", networkChannel, "--stream", "3003", "--count", "7" },
                subscriberOut, subscriberOut, running::get)));
            subscriber.start();

            final String published = run(BasicPublisher::run, "--channel",
                networkChannel + "|interface=127.0.1.1,127.0.1.2", "--stream", "3003", "--count", "7",
                "--length", "100", "--rate", "0");
            subscriber.join();
            final String received = subscriberBytes.toString(StandardCharsets.UTF_8);

            assertEquals(ToolArguments.EXIT_OK, subscriberStatus.get(), received);
            assertEquals(7, published.lines().filter((line) -> line.startsWith("offered 'Hello World! ")).count(),
                published);
            assertEquals(7, received.lines().filter((line) -> line.contains(" length 100: 'Hello World! ")).count(),
                received);
            assertTrue(received.contains("'Hello World! 6" + ".".repeat(100 - "Hello World! 6".length()) + "'"),
                received);
            assertTrue(received.contains("7 messages received"), received);
        });
    }

    @Test
    void shouldPrintUsageWithEveryOptionAndExitZeroOnHelp()
    {
        assertUsage(MetaRoceStat::run, "--stream", "--session", "--channel", "--type", "--non-zero", "--compact",
            "--once", "--interval", "--dir", "metaroce.dir", "ESTABLISHED");
        assertUsage(StreamStat::run, "--stream", "--channel", "--once", "--interval", "--dir", "rcv-hwm", "lag");
        assertUsage(BacklogStat::run, "--stream", "--channel", "--once", "--dir", "sender backlog", "receiver backlog");
        assertUsage(ErrorStat::run, "--dir", "distinct errors");
        assertUsage(LossStat::run, "--dir", "loss entries");
        assertUsage(BasicPublisher::run, "--channel", "--stream", "--count", "--length", "--rate",
            "metaroce.sample.channel", "metaroce.sample.stream.id", "metaroce.sample.messages",
            "metaroce.sample.message.length", "metaroce.sample.rate", "offered");
        assertUsage((args, out, err) -> BasicSubscriber.run(args, out, err, () -> false), "--channel", "--stream",
            "--count", "--fragment-limit", "--quiet", "metaroce.sample.channel", "metaroce.sample.stream.id",
            "messages received");
        assertUsage((args, out, err) -> IpcDemo.arguments().parse(args, out, err),
            "metaroce.demo.throughput.duration", "metaroce.demo.latency.duration", "metaroce.sample.message.length");
        assertUsage((args, out, err) -> IpcThroughput.arguments().parse(args, out, err),
            "metaroce.sample.duration", "metaroce.sample.exclusive", "metaroce.sample.publisher.idle");
        assertUsage((args, out, err) -> IpcPingPong.arguments().parse(args, out, err),
            "metaroce.sample.warmup", "metaroce.sample.pong.stream.id", "metaroce.sample.ping.idle");
        assertUsage((args, out, err) -> MultipathDemo.arguments().parse(args, out, err),
            "metaroce.demo.planes", "metaroce.demo.loss", "metaroce.demo.down.plane", "metaroce.demo.message.length");
        assertUsage((args, out, err) -> WireCodecDemo.arguments().parse(args, out, err),
            "metaroce.demo.fuzz.count", "metaroce.demo.seed");
    }

    @Test
    void shouldExitTwoWithTheUsageOnAnUnknownOption()
    {
        final List<Tool> tools = List.of(MetaRoceStat::run, StreamStat::run, BacklogStat::run, ErrorStat::run,
            LossStat::run, BasicPublisher::run, (args, out, err) -> BasicSubscriber.run(args, out, err, () -> false),
            (args, out, err) -> IpcDemo.arguments().parse(args, out, err),
            (args, out, err) -> MultipathDemo.arguments().parse(args, out, err));
        for (final Tool tool : tools)
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            assertEquals(ToolArguments.EXIT_USAGE, tool.run(new String[]{ "--no-such-option" }, System.out, err));
            final String text = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("unknown option '--no-such-option'") && text.contains("Usage: "), text);
        }
    }

    @FunctionalInterface
    interface Tool
    {
        int run(String[] args, PrintStream out, PrintStream err);
    }

    private static void assertUsage(final Tool tool, final String... mentions)
    {
        for (final String help : new String[]{ "--help", "-h" })
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            assertEquals(ToolArguments.EXIT_OK, tool.run(new String[]{ help }, out, System.err));
            final String text = bytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.startsWith("Usage: ") && text.contains("-h, --help"), text);
            for (final String mention : mentions)
            {
                assertTrue(text.contains(mention), mention + " in " + text);
            }
        }
    }

    private String run(final Tool tool, final String... args)
    {
        final String[] withDir = Arrays.copyOf(args, args.length + 2);
        withDir[args.length] = "--dir";
        withDir[args.length + 1] = driver.directoryName();
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        final int status = tool.run(withDir, out, out);
        final String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(ToolArguments.EXIT_OK, status, text);
        return text;
    }

    private int status(final Tool tool, final String... args)
    {
        final String[] withDir = Arrays.copyOf(args, args.length + 2);
        withDir[args.length] = "--dir";
        withDir[args.length + 1] = driver.directoryName();
        final PrintStream discard = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return tool.run(withDir, discard, discard);
    }

    private static long counterLines(final String text)
    {
        return counterLineList(text).size();
    }

    private static List<String> counterLineList(final String text)
    {
        return text.lines().filter((line) -> line.matches(" *\\d+: .*")).toList();
    }

    private static String group(final String text, final String regex)
    {
        final Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex + " in " + text);
        return matcher.group(1);
    }

    private static long number(final String text, final String regex)
    {
        final Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), regex + " in " + text);
        return Long.parseLong(matcher.group(1));
    }

    private static void awaitConnected(final Publication publication, final Subscription subscription)
        throws InterruptedException
    {
        while (!publication.isConnected() || !subscription.isConnected())
        {
            TimeUnit.MILLISECONDS.sleep(1);
        }
    }

    /**
     * Publish messages and read them all.
     *
     * @return the publication's position after the last message.
     */
    private static long exchange(final Publication publication, final Subscription subscription, final int messages)
        throws InterruptedException
    {
        final long position = publish(publication, messages);
        final AtomicInteger received = new AtomicInteger();
        while (received.get() < messages)
        {
            if (0 == subscription.poll((buffer, offset, length, header) -> received.incrementAndGet(), 10))
            {
                TimeUnit.MILLISECONDS.sleep(1);
            }
        }
        return position;
    }

    private static long publish(final Publication publication, final int messages) throws InterruptedException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        long position = 0;
        for (int i = 0; i < messages; i++)
        {
            while ((position = publication.offer(buffer, 0, 64)) < 0)
            {
                TimeUnit.MILLISECONDS.sleep(1);
            }
        }
        return position;
    }

    private void awaitSenderPosition(final long position) throws InterruptedException
    {
        await((text) -> text.contains("snd-ack-pos " + position + " ") && text.contains("pub-pos " + position + " "),
            StreamStat::run);
    }

    private long awaitReceiverHwmBeyond(final long position) throws InterruptedException
    {
        final String text = await((t) -> number(t, "rcv-hwm (\\d+)") > position, StreamStat::run);
        return number(text, "rcv-hwm (\\d+)");
    }

    private String await(final Function<String, Boolean> condition, final Tool tool) throws InterruptedException
    {
        while (true)
        {
            final String text = run(tool, "--once", "--stream", Integer.toString(NET_STREAM));
            if (condition.apply(text))
            {
                return text;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private static int freePort()
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try (DatagramSocket first = new DatagramSocket(
                new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0)))
            {
                final int port = first.getLocalPort();
                try
                {
                    new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), port)).close();
                    return port;
                }
                catch (final IOException ignore)
                {
                    // taken on the second plane: try another
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.2 and 127.0.0.3");
    }
}
