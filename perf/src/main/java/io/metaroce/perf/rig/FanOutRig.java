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
package io.metaroce.perf.rig;

import io.metaroce.client.ChannelUri;
import io.metaroce.client.ExclusivePublication;
import io.metaroce.client.Image;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.BufferClaim;
import io.metaroce.client.logbuffer.FragmentHandler;
import io.metaroce.client.logbuffer.Header;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.datapath.io.NativeDatagrams;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.CountersReader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The {@code fanout} scenario: one multi-destination publication ({@code control-mode=manual}) on one embedded
 * driver, sending to receive endpoints on loopback, each its own address and so its own connection. Every message
 * carries its sequence number and every destination's subscription checks it: each message once, in order, from the
 * first. Four runs, each reported in the summary:
 * <ul>
 *     <li><b>1 destination</b>: the publisher's rate without and with a spy ({@code metaroce-spy:}) polled by a
 *     thread of its own, in turn {@link #SPY_ROUNDS} times for half the measured time each, the median of each; the
 *     spies check their messages too;</li>
 *     <li><b>8 destinations</b> (one receiving driver, eight subscriptions on eight addresses): the publisher's rate
 *     and {@code rate8 / (rate1 / 8)}; then a ninth destination added and removed under load, repeatedly, and the
 *     messages the eight others lost or got twice;</li>
 *     <li><b>a stopped driver</b>: {@code fc=fastest} with {@code fc-timeout} over the eight and a ninth destination
 *     whose receiving driver is a process of its own ({@link #main}), the publisher offering
 *     {@link #STOP_RUN_PACE} of the 8-destination rate; the publisher's rate before, the time from that process's
 *     {@code SIGSTOP} until the publication drops it ({@code DESTINATIONS_DROPPED}), the rate after, and the live
 *     destinations dropped.</li>
 * </ul>
 * Threads: the publisher (the rig's thread, {@code tryClaim}), one poller of every receiving subscription, one of the
 * spy, and the drivers (SHARED, the UDP idle strategies of {@link SystemSettings#udpDefaults()}); the batched
 * transport where it runs.
 */
final class FanOutRig
{
    static final String NAME = "fanout";
    static final int LENGTH = 288;
    static final int DESTINATIONS = 8;
    static final long FC_TIMEOUT_MS = 1_000;
    /**
     * The stopped-driver run offers this share of the 8-destination rate: {@code fc=fastest} follows the fastest
     * destination, so a publisher that offers faster than the slowest live destination takes drops that one after
     * the timeout, as it should; a feed below what every destination takes shows what the flow control is for.
     */
    static final double STOP_RUN_PACE = 0.25;
    private static final int STREAM = 7001;
    private static final long PACE_ARREARS_MS = 10;
    static final int SPY_ROUNDS = 3;
    private static final int TERM_LENGTH = 1024 * 1024;
    private static final int FRAGMENT_LIMIT = 64;
    private static final long CONNECT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);
    private static final long DRAIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final long CHURN_PHASE_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final String SPY_CHANNEL = ChannelUri.SPY_PREFIX + ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?" +
        ChannelUri.CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE;
    private static final String READY = "READY";
    private static final String CONNECTED = "CONNECTED";

    /**
     * The checks and measurements of one repetition.
     *
     * @param rate1          publisher messages per second to 1 destination.
     * @param rate1Spied     the same with a spy polling it, same run.
     * @param spyExact       {@code yes} when the spy got each message once, in order, from its first, {@code no}
     *                       when not, {@code lapped} when it fell behind and was lapped.
     * @param rate8          publisher messages per second to 8 destinations.
     * @param exact          whether every destination of the 1- and 8-destination runs got every message once, in
     *                       order.
     * @param churns         times the ninth destination was added and removed under load.
     * @param churnLost      messages the 8 others lost meanwhile.
     * @param churnDuplicated messages the 8 others got more than once meanwhile.
     * @param pacedRate      messages per second offered in the stopped-driver run ({@link #STOP_RUN_PACE} of
     *                       {@code rate8}).
     * @param rateBeforeStop publisher messages per second to 8 + 1 destinations with {@code fc=fastest}.
     * @param dropMs         milliseconds from the SIGSTOP to the drop, -1 when it was not dropped, -2 when a
     *                       destination was dropped before the SIGSTOP (then the stopped one, too slow before it
     *                       stopped, unless a live one is missing).
     * @param rateAfterDrop  publisher messages per second to the 8 after the drop.
     * @param liveDropped    live destinations that stopped short of the last message in the stopped-driver run:
     *                       dropped.
     * @param stopExact      whether the 8 got every message once, in order, in the stopped-driver run.
     */
    record Result(
        double rate1,
        double rate1Spied,
        String spyExact,
        double rate8,
        boolean exact,
        int churns,
        long churnLost,
        long churnDuplicated,
        double pacedRate,
        double rateBeforeStop,
        long dropMs,
        double rateAfterDrop,
        long liveDropped,
        boolean stopExact)
    {
        double ratio()
        {
            return rate8 / (rate1 / DESTINATIONS);
        }
    }

    private FanOutRig()
    {
    }

    static void runScenario(final BenchRunner runner, final boolean smoke)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("## " + NAME);
        lines.add("");
        final boolean batched = NativeDatagrams.isAvailable();
        lines.add("One multi-destination publication (`control-mode=manual`, " + TERM_LENGTH / 1024 + " KiB terms, " +
            LENGTH + "-byte messages written with `tryClaim` as fast as the publication takes them) on one embedded " +
            "driver, to receive endpoints on loopback addresses of their own (one connection each) on a second " +
            "driver" + (batched ? ", batched transport" : ", NIO transport (the batched one cannot run here)") +
            ". Every destination checks each message's sequence. Rates are the publisher's, in millions of " +
            "messages per second, over " + runner.measureNs() / 1_000_000 + " ms after " +
            runner.warmupNs() / 1_000_000 + " ms of warm-up (rate1 and rate1 + spy: the medians of " + SPY_ROUNDS +
            " phases of half that, without and with a spy in turn); ratio = rate8 / (rate1 / 8), target >= 0.8. " +
            "Churn: a ninth destination added and removed every " + TimeUnit.NANOSECONDS.toMillis(CHURN_PHASE_NS) +
            " ms under load. Stop: `fc=fastest|fc-timeout=" + FC_TIMEOUT_MS + "ms` over the 8 and a ninth " +
            "destination whose driver is a process of its own, then SIGSTOPped; the publisher offers " +
            STOP_RUN_PACE + " x rate8 there (fastest follows the fastest destination, so a publisher faster than " +
            "a live destination drops it after the timeout: live dropped counts those).");
        lines.add("");
        lines.add("| rep | rate1 | rate1 + spy | spy exact | rate8 | ratio | every message once, in order | " +
            "churns | lost | duplicated | offered | rate before stop | dropped after | rate after drop | " +
            "live dropped | exact after stop |");
        lines.add("|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (int rep = 0; rep < runner.reps(); rep++)
        {
            final Result result = run(runner.warmupNs(), runner.measureNs());
            lines.add(String.format(Locale.ROOT, "| %d | %.3f | %.3f | %s | %.3f | %.2f | %s | %d | %d | %d | %.3f | " +
                "%.3f | %s | %.3f | %d | %s |",
                rep + 1, result.rate1() / 1e6, result.rate1Spied() / 1e6, result.spyExact(),
                result.rate8() / 1e6, result.ratio(), yesNo(result.exact()), result.churns(), result.churnLost(),
                result.churnDuplicated(), result.pacedRate() / 1e6, result.rateBeforeStop() / 1e6,
                dropCell(result.dropMs()), result.rateAfterDrop() / 1e6,
                result.liveDropped(), yesNo(result.stopExact())));
            System.out.println(NAME + " rep " + (rep + 1) + ": " + result);
        }
        lines.add("");
        if (smoke)
        {
            lines.add("(smoke run: the numbers mean nothing)");
            lines.add("");
        }
        runner.addSummary(lines);
    }

    static Result run(final long warmupNs, final long measureNs)
    {
        final SystemSettings settings = SystemSettings.udpDefaults();

        final double rate1;
        final double rate1Spied;
        final String spyExact;
        final boolean exact1;
        try (Ends ends = new Ends(settings, 1))
        {
            ends.start("");
            ends.offerFor(warmupNs);
            // without and with a spy in turn, the median of each: one publisher's rate moves by several times
            // between phases of one run on this machine, more than a spy could cost
            final double[] without = new double[SPY_ROUNDS];
            final double[] with = new double[SPY_ROUNDS];
            boolean lapped = false;
            boolean spiesExact = true;
            for (int round = 0; round < SPY_ROUNDS; round++)
            {
                without[round] = ends.measure(0, measureNs / 2);
                final Checker spy = new Checker(ends.sender.addSubscription(SPY_CHANNEL, STREAM), false);
                awaitOrFail(() -> spy.subscription.imageCount() > 0, "the spy's image");
                final Image spyImage = spy.subscription.images().get(0);
                final Poller spyPoller = new Poller(new Checker[]{spy}, settings.applicationIdle(), "fanout-spy");
                with[round] = ends.measure(0, measureNs / 2);
                ends.awaitReceived(spy, spyImage);
                spyPoller.close();
                lapped |= spyImage.isLapped();
                spiesExact &= spy.isExact();
                spy.subscription.close();
            }
            exact1 = ends.drain();
            rate1 = median(without);
            rate1Spied = median(with);
            spyExact = lapped ? "lapped" : yesNo(spiesExact);
        }

        final double rate8;
        final boolean exact8;
        int churns = 0;
        final long lost;
        final long duplicated;
        try (Ends ends = new Ends(settings, DESTINATIONS + 1))
        {
            ends.start("");
            rate8 = ends.measure(warmupNs, measureNs);
            final String ninth = ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?endpoint=" + ends.endpoints[DESTINATIONS];
            final long churnEnd = System.nanoTime() + measureNs;
            while (System.nanoTime() < churnEnd)
            {
                ends.addWhenLeft(ninth);
                ends.offerFor(CHURN_PHASE_NS);
                ends.offerUntilDone(ends.publication.asyncRemoveDestination(ninth));
                ends.offerFor(CHURN_PHASE_NS);
                churns++;
            }
            exact8 = ends.drain();
            lost = ends.lost();
            duplicated = ends.duplicated();
        }

        final double pacedRate = STOP_RUN_PACE * rate8;
        final double rateBeforeStop;
        final double rateAfterDrop;
        final long liveDropped;
        final boolean stopExact;
        long dropMs = -1;
        try (Ends ends = new Ends(settings, DESTINATIONS);
            Peer peer = new Peer(settings))
        {
            ends.start("|" + ChannelUri.FLOW_CONTROL_PARAM + "=" + ChannelUri.FASTEST_FLOW_CONTROL + "|" +
                ChannelUri.FLOW_CONTROL_TIMEOUT_PARAM + "=" + FC_TIMEOUT_MS + "ms", peer.endpoint);
            peer.awaitConnected();
            final int droppedId = counterId(ends.sender.countersReader(),
                SystemCounterDescriptor.DESTINATIONS_DROPPED.label());
            final long droppedAtStart = ends.sender.countersReader().getCounterValue(droppedId);
            ends.pace(pacedRate);
            rateBeforeStop = ends.measure(warmupNs, measureNs);
            final long droppedBefore = ends.sender.countersReader().getCounterValue(droppedId);
            peer.signal("STOP");
            final long stoppedAt = System.nanoTime();
            final long dropDeadline = stoppedAt + TimeUnit.MILLISECONDS.toNanos(FC_TIMEOUT_MS) + DRAIN_TIMEOUT_NS;
            if (droppedBefore > droppedAtStart)
            {
                dropMs = -2;
                ends.offerFor(TimeUnit.MILLISECONDS.toNanos(2 * FC_TIMEOUT_MS));
            }
            while (dropMs == -1 && System.nanoTime() < dropDeadline)
            {
                ends.offerFor(TimeUnit.MILLISECONDS.toNanos(1));
                if (ends.sender.countersReader().getCounterValue(droppedId) > droppedBefore)
                {
                    dropMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
                    break;
                }
            }
            rateAfterDrop = ends.measure(0, measureNs);
            liveDropped = ends.shortOfTheEnd();
            stopExact = 0 == liveDropped && ends.isExact();
            peer.signal("CONT");
        }

        return new Result(rate1, rate1Spied, spyExact, rate8, exact1 && exact8, churns, lost, duplicated,
            pacedRate, rateBeforeStop, dropMs, rateAfterDrop, liveDropped, stopExact);
    }

    /**
     * A receiving driver of its own, for the stopped-driver run: {@code receive <endpoint> <stream>}. Prints
     * {@code READY} once subscribed and {@code CONNECTED} once its image is there, polls until its standard input
     * closes, then closes its driver and exits.
     *
     * @param args {@code receive <endpoint> <stream>}.
     */
    public static void main(final String[] args)
    {
        final SystemSettings settings = SystemSettings.udpDefaults();
        final MediaDriver driver = launchDriver(settings);
        final MetaRoce client = MetaRoce.connect(
            new MetaRoce.Context().directoryName(driver.context().directoryName()));
        try
        {
            final Subscription subscription = client.addSubscription(
                ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?endpoint=" + args[1] + "|term-length=" + TERM_LENGTH,
                Integer.parseInt(args[2]));
            System.out.println(READY);
            System.out.flush();
            final AtomicBoolean inputOpen = new AtomicBoolean(true);
            final Thread watcher = new Thread(() ->
            {
                try
                {
                    System.in.transferTo(OutputStream.nullOutputStream());
                }
                catch (final IOException ignore)
                {
                    // a broken input ends the run like a closed one
                }
                inputOpen.set(false);
            }, "stdin-watcher");
            watcher.setDaemon(true);
            watcher.start();

            final IdleStrategy idle = SystemSettings.idleStrategy(settings.applicationIdle());
            final long[] received = {0};
            final FragmentHandler handler = (buffer, offset, length, header) -> received[0]++;
            boolean connected = false;
            while (inputOpen.get())
            {
                if (!connected && subscription.isConnected())
                {
                    connected = true;
                    System.out.println(CONNECTED);
                    System.out.flush();
                }
                idle.idle(subscription.poll(handler, FRAGMENT_LIMIT));
            }
        }
        finally
        {
            CloseHelper.closeAll(client, driver);
        }
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String dropCell(final long dropMs)
    {
        return -2 == dropMs ? "before the stop" : dropMs < 0 ? "not dropped" : dropMs + " ms";
    }

    private static String yesNo(final boolean value)
    {
        return value ? "yes" : "no";
    }

    private static MediaDriver launchDriver(final SystemSettings settings)
    {
        final PacketTransportFactory transport = NativeDatagrams.isAvailable() ?
            Scenarios.batched() : PacketTransportFactory.udp();
        return MediaDriver.launchEmbedded(new MediaDriver.Context()
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(SystemSettings.idleStrategy(settings.driverIdle()))
            .countersBufferLength(4 * 1024 * 1024)
            .transportFactory(transport)
            .termSparseFile(false));
    }

    private static int counterId(final CountersReader counters, final String label)
    {
        final int[] id = {-1};
        counters.forEach((counterId, typeId, keyBuffer, counterLabel) ->
        {
            if (label.equals(counterLabel))
            {
                id[0] = counterId;
            }
        });
        if (id[0] < 0)
        {
            throw new IllegalStateException("no counter '" + label + "'");
        }

        return id[0];
    }

    private static void awaitOrFail(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("fanout: no " + what + " within " +
                    TimeUnit.NANOSECONDS.toSeconds(CONNECT_TIMEOUT_NS) + " s");
            }
            Thread.yield();
        }
    }

    /**
     * The publishing driver and client, the receiving driver and client with a subscription per endpoint, the
     * publication and the poller of the subscriptions. A ninth endpoint (past {@link #DESTINATIONS}) is subscribed
     * but a destination only while the churn adds it, and not checked.
     */
    private static final class Ends implements AutoCloseable
    {
        final List<AutoCloseable> resources = new ArrayList<>();
        final MetaRoce sender;
        final MetaRoce receiver;
        final String[] endpoints;
        final Checker[] checkers;
        final IdleStrategy idle;
        final BufferClaim claim = new BufferClaim();
        final String applicationIdle;
        ExclusivePublication publication;
        long sequence;
        double pacedRate;
        long paceStartNs;
        long pacedCount;

        Ends(final SystemSettings settings, final int endpointCount)
        {
            applicationIdle = settings.applicationIdle();
            idle = SystemSettings.idleStrategy(applicationIdle);
            final MediaDriver senderDriver = track(launchDriver(settings));
            sender = track(MetaRoce.connect(
                new MetaRoce.Context().directoryName(senderDriver.context().directoryName())));
            final MediaDriver receiverDriver = track(launchDriver(settings));
            receiver = track(MetaRoce.connect(
                new MetaRoce.Context().directoryName(receiverDriver.context().directoryName())));
            final List<String> hosts = new ArrayList<>();
            for (int i = 0; i < endpointCount; i++)
            {
                hosts.add("127.0.0." + (2 + i));
            }
            final int port = FreePorts.udpPort(hosts);
            endpoints = new String[endpointCount];
            checkers = new Checker[endpointCount];
            for (int i = 0; i < endpointCount; i++)
            {
                endpoints[i] = hosts.get(i) + ":" + port;
                // every endpoint but a churned ninth is a destination from the first message on
                checkers[i] = new Checker(receiver.addSubscription(ChannelUri.PREFIX + ChannelUri.UDP_MEDIA +
                    "?endpoint=" + endpoints[i] + "|term-length=" + TERM_LENGTH, STREAM),
                    endpointCount == 1 || i < DESTINATIONS);
            }
        }

        /**
         * Add the publication to the checked endpoints (and any extra destinations), wait until each is connected,
         * and start polling.
         */
        void start(final String params, final String... extraDestinations)
        {
            final StringBuilder destinations = new StringBuilder();
            int checked = 0;
            for (int i = 0; i < endpoints.length; i++)
            {
                if (checkers[i].isChecked)
                {
                    destinations.append(0 == checked++ ? "" : ";").append(endpoints[i]);
                }
            }
            for (final String extra : extraDestinations)
            {
                destinations.append(';').append(extra);
            }
            publication = track(sender.addExclusivePublication(ChannelUri.PREFIX + ChannelUri.UDP_MEDIA + "?" +
                ChannelUri.CONTROL_MODE_PARAM + "=" + ChannelUri.MANUAL_CONTROL_MODE + "|" +
                ChannelUri.DESTINATIONS_PARAM + "=" + destinations + "|term-length=" + TERM_LENGTH + params, STREAM));
            awaitOrFail(() ->
            {
                for (final Checker checker : checkers)
                {
                    if (checker.isChecked && !checker.subscription.isConnected())
                    {
                        return false;
                    }
                }
                return publication.isConnected();
            }, "connection to every destination");
            track(new Poller(checkers, applicationIdle, "fanout-receivers"));
        }

        /**
         * Offer for a warm-up and then a measured phase.
         *
         * @return messages per second in the measured phase.
         */
        double measure(final long warmupNs, final long measureNs)
        {
            offerFor(warmupNs);
            final long start = System.nanoTime();
            final long count = offerFor(measureNs);
            return count * 1e9 / Math.max(1, System.nanoTime() - start);
        }

        long offerFor(final long durationNs)
        {
            final long end = System.nanoTime() + durationNs;
            long count = 0;
            do
            {
                count += offerBatch();
            }
            while (System.nanoTime() < end);

            return count;
        }

        /**
         * Add a destination under load, again while the driver still has it leaving from its last removal.
         */
        void addWhenLeft(final String destination)
        {
            final long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
            while (true)
            {
                try
                {
                    offerUntilDone(publication.asyncAddDestination(destination));
                    return;
                }
                catch (final RegistrationException ex)
                {
                    if (ControlErrorCode.CLASH != ex.errorCode() || System.nanoTime() > deadline)
                    {
                        throw ex;
                    }
                    offerFor(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
        }

        /**
         * Offer at most a rate from now on, making up no more than {@link #PACE_ARREARS_MS} of arrears after a stall.
         *
         * @param messagesPerSecond the rate.
         */
        void pace(final double messagesPerSecond)
        {
            pacedRate = messagesPerSecond;
            paceStartNs = System.nanoTime();
            pacedCount = 0;
        }

        void offerUntilDone(final long correlationId)
        {
            while (sender.isCommandActive(correlationId))
            {
                offerBatch();
            }
        }

        private int offerBatch()
        {
            final ExclusivePublication publication = this.publication;
            final BufferClaim claim = this.claim;
            int limit = 64;
            if (pacedRate > 0)
            {
                final long due = (long)((System.nanoTime() - paceStartNs) * pacedRate / 1e9) - pacedCount;
                final long mostArrears = (long)(pacedRate * PACE_ARREARS_MS / 1e3);
                if (due > mostArrears)
                {
                    pacedCount += due - mostArrears;
                }
                limit = (int)Math.max(0, Math.min(limit, due));
            }
            int count = 0;
            for (int i = 0; i < limit; i++)
            {
                if (publication.tryClaim(LENGTH, claim) > 0)
                {
                    claim.buffer().putLong(claim.offset(), sequence++);
                    claim.commit();
                    count++;
                }
                else
                {
                    break;
                }
            }
            pacedCount += count;
            idle.idle(count);

            return count;
        }

        /**
         * Wait until every checked destination got every message published, or the drain timeout.
         *
         * @return how many did not: a live destination that stops short was dropped.
         */
        int shortOfTheEnd()
        {
            final long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
            int stoppedShort = 0;
            for (final Checker checker : checkers)
            {
                while (checker.isChecked && checker.next.get() < sequence && System.nanoTime() < deadline)
                {
                    Thread.yield();
                }
                stoppedShort += checker.isChecked && checker.next.get() < sequence ? 1 : 0;
            }

            return stoppedShort;
        }

        /**
         * Whether every checked destination got each of its messages once, in order, from the first.
         *
         * @return true when each did.
         */
        boolean isExact()
        {
            boolean exact = true;
            for (final Checker checker : checkers)
            {
                exact &= !checker.isChecked || (checker.isExact() && checker.first == 0);
            }

            return exact;
        }

        /**
         * Wait until every checked destination got every message published.
         *
         * @return whether each got each message once, in order.
         */
        boolean drain()
        {
            boolean exact = true;
            for (final Checker checker : checkers)
            {
                if (checker.isChecked)
                {
                    awaitReceived(checker);
                    exact &= checker.isExact() && checker.first == 0;
                }
            }

            return exact;
        }

        void awaitReceived(final Checker checker)
        {
            awaitReceived(checker, null);
        }

        /**
         * Wait until a subscription got every message published, or its image (when given) was lapped.
         */
        void awaitReceived(final Checker checker, final Image image)
        {
            final long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
            while (checker.next.get() < sequence && (null == image || !image.isLapped()))
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("fanout: a destination stopped at message " + checker.next.get() +
                        " of " + sequence + " (lost " + checker.lost + ", duplicated " + checker.duplicated + ")");
                }
                Thread.yield();
            }
        }

        long lost()
        {
            long lost = 0;
            for (final Checker checker : checkers)
            {
                lost += checker.isChecked ? checker.lost : 0;
            }
            return lost;
        }

        long duplicated()
        {
            long duplicated = 0;
            for (final Checker checker : checkers)
            {
                duplicated += checker.isChecked ? checker.duplicated : 0;
            }
            return duplicated;
        }

        private <T extends AutoCloseable> T track(final T resource)
        {
            resources.add(resource);
            return resource;
        }

        public void close()
        {
            for (int i = resources.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(resources.get(i));
            }
        }
    }

    /**
     * One subscription's sequence check, written by its poller's thread; the rig reads {@link #next} while it runs
     * and the counts once the poller stopped.
     */
    private static final class Checker implements FragmentHandler
    {
        final Subscription subscription;
        final boolean isChecked;
        final AtomicLong next = new AtomicLong();
        long first = -1;
        long expected = -1;
        long lost;
        long duplicated;

        Checker(final Subscription subscription, final boolean isChecked)
        {
            this.subscription = subscription;
            this.isChecked = isChecked;
        }

        public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
        {
            final long sequence = buffer.getLong(offset);
            if (expected < 0)
            {
                first = sequence;
                expected = sequence;
            }
            if (sequence == expected)
            {
                expected++;
            }
            else if (sequence < expected)
            {
                duplicated++;
            }
            else
            {
                lost += sequence - expected;
                expected = sequence + 1;
            }
            next.lazySet(expected); // release: the rig waits on it
        }

        boolean isExact()
        {
            return 0 == lost && 0 == duplicated;
        }
    }

    /**
     * A thread polling subscriptions in turn until closed.
     */
    private static final class Poller implements AutoCloseable
    {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Poller(final Checker[] checkers, final String idleName, final String name)
        {
            final IdleStrategy idle = SystemSettings.idleStrategy(idleName);
            thread = new Thread(() ->
            {
                while (running.get())
                {
                    int work = 0;
                    for (final Checker checker : checkers)
                    {
                        work += checker.subscription.poll(checker, FRAGMENT_LIMIT);
                    }
                    idle.idle(work);
                }
            }, name);
            thread.start();
        }

        public void close()
        {
            running.set(false);
            try
            {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The ninth destination of the stopped-driver run: {@link #main} in a JVM of its own, on 127.0.0.20.
     */
    private static final class Peer implements AutoCloseable
    {
        final Process process;
        final String endpoint;
        final AtomicReference<String> lastLine = new AtomicReference<>("");

        Peer(final SystemSettings settings)
        {
            endpoint = "127.0.0.20:" + FreePorts.udpPort(List.of("127.0.0.20"));
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            // the flags ./metaroce gives every driver: Agrona's, and the transport's allocation-free receive
            final ProcessBuilder builder = new ProcessBuilder(java, "-Xmx128m",
                "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "-D" + SystemSettings.UDP_DRIVER_IDLE_PROP_NAME + "=" + settings.driverIdle(),
                "-D" + SystemSettings.UDP_APPLICATION_IDLE_PROP_NAME + "=" + settings.applicationIdle(),
                "-cp", System.getProperty("java.class.path"), FanOutRig.class.getName(),
                "receive", endpoint, String.valueOf(STREAM))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
            try
            {
                process = builder.start();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("fanout: could not start the peer driver with " + java, ex);
            }
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
                {
                    for (String line = lines.readLine(); null != line; line = lines.readLine())
                    {
                        lastLine.set(line);
                    }
                }
                catch (final IOException ignore)
                {
                    // the peer is gone; awaitConnected reports it
                }
            }, "fanout-peer-reader");
            reader.setDaemon(true);
            reader.start();
            awaitOrFail(() -> READY.equals(lastLine.get()) || CONNECTED.equals(lastLine.get()),
                "READY from the peer driver " + process.pid());
        }

        void awaitConnected()
        {
            awaitOrFail(() -> CONNECTED.equals(lastLine.get()), "connection to the peer driver " + process.pid());
        }

        void signal(final String signal)
        {
            try
            {
                final int status = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
                    .inheritIO().start().waitFor();
                if (0 != status)
                {
                    throw new IllegalStateException("fanout: kill -" + signal + " " + process.pid() + " exited " +
                        status);
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("fanout: could not run kill -" + signal, ex);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("fanout: interrupted sending SIG" + signal, ex);
            }
        }

        public void close()
        {
            try
            {
                process.getOutputStream().close();
                if (!process.waitFor(10, TimeUnit.SECONDS))
                {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
            catch (final IOException ex)
            {
                process.destroyForcibly();
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
