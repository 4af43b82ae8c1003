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
package io.metaroce.datapath.connection;

import io.metaroce.datapath.congestion.CreditGrantHandler;
import io.metaroce.datapath.congestion.CreditScheduler;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.EngineSettings;

import java.util.Arrays;

/**
 * The receiver-driven credit of one receiving link, shared by every {@code SocketGroup} that receives on it: one
 * {@link CreditScheduler} (one budget, one credit window, fair rounds over every sender of every group) and the
 * table that carries a grant of a client id to its {@link ReceiverConnection}, whichever group or engine owns it.
 * <p>
 * Groups given one through {@code SocketGroup.Context#creditScheduler(SharedCreditScheduler)} (or engines through
 * {@code TransportEngine.Context#creditScheduler(SharedCreditScheduler)}) share it; a group without one builds its
 * own. An engine runs each scheduler of its groups once on its poll and timer passes, and a connection runs its own
 * on a CREDIT_REQUEST; engines sharing one each run it, which is harmless: a pass grants only what the budget, the
 * window and the progress reported since the last pass allow, so a second pass in the same duty cycle finds only
 * what the first left, and a grant still follows the receive that freed its credit at once. A grant for a
 * connection of another engine is sent by that engine on its next pass.
 * <p>
 * Single-threaded: every engine sharing it runs on one thread (the driver's receiver agent; in SHARED threading the
 * one thread). It may be built on another thread and handed over before any engine uses it; its settings are final
 * and may be read from any thread. Allocates only when a connection's client id grows the table.
 */
public final class SharedCreditScheduler
{
    private static final long BYTES_PER_SECOND_PER_MBPS = 125_000L;

    /**
     * The window in bandwidth-delay products of the link when the link's rate and the senders' round trip are
     * known.
     */
    static final double WINDOW_BDPS = CreditScheduler.WINDOW_BDPS;

    /**
     * The window follows the senders' demand up to this multiple of the configured window
     * ({@link CreditScheduler#adaptWindow(long, long)}): enough for a long fat pipe from the default window (64 MiB,
     * 50 ms at 10 Gb/s), while the configured window stays the operator's handle on the most credit outstanding.
     */
    static final int MAX_WINDOW_GROWTH = 64;

    private static final int QUANTA_PER_WINDOW = 8;
    private static final int MIN_QUANTUM = 4096;

    private final long budgetMbps;
    private final double overcommit;
    private final int quantum;
    private final long configuredWindowBytes;
    private long windowBytes;
    private long largestRttHintNs;
    private final long slackNs;
    private final CreditScheduler scheduler;
    private final CreditGrantHandler grantHandler = this::onGrant;
    private ReceiverConnection[] connectionsByClient = new ReceiverConnection[8];

    /**
     * A scheduler with the credit settings of an engine: the budget
     * ({@link #budgetMbps(EngineSettings)}), overcommit, quantum and window.
     *
     * @param settings the settings of the first engine; the others must agree ({@link #checkSettings}).
     * @throws IllegalArgumentException naming the credit setting that is invalid.
     */
    public SharedCreditScheduler(final EngineSettings settings)
    {
        this.budgetMbps = budgetMbps(settings);
        this.overcommit = settings.credit().creditOvercommit();
        this.quantum = settings.credit().creditQuantum();
        this.configuredWindowBytes = settings.credit().creditWindowBytes();
        this.windowBytes = configuredWindowBytes;
        check(budgetMbps >= 0, Configuration.LINK_RATE_MBPS_PROP_NAME, budgetMbps);
        check(overcommit >= 0, Configuration.CREDIT_OVERCOMMIT_PROP_NAME, overcommit);
        check(quantum > 0, Configuration.CREDIT_QUANTUM_PROP_NAME, quantum);
        check(windowBytes >= quantum, Configuration.CREDIT_WINDOW_BYTES_PROP_NAME, windowBytes);
        this.scheduler = new CreditScheduler(budgetMbps * BYTES_PER_SECOND_PER_MBPS, overcommit, quantum, windowBytes);
        this.slackNs = settings.congestion().ccSlackNs();
        // The receiver learns the path from its credit rounds: no link rate or round trip needs announcing.
        scheduler.adaptWindow(saturatedMultiply(windowBytes, MAX_WINDOW_GROWTH), slackNs);
    }

    /**
     * The credit budget an engine's settings ask for: its credit rate, or its link rate when that is 0.
     *
     * @param settings the settings.
     * @return Mb/s, 0 for no rate limit.
     */
    public static long budgetMbps(final EngineSettings settings)
    {
        final EngineSettings.CreditSettings credit = settings.credit();
        return credit.creditRateMbps() > 0 ? credit.creditRateMbps() : credit.linkRateMbps();
    }

    /**
     * The budget shared by every sender on the link.
     *
     * @return Mb/s, 0 for no rate limit.
     */
    public long budgetMbps()
    {
        return budgetMbps;
    }

    /**
     * Most granted-but-unreceived bytes of the senders with backlog, over every engine sharing the scheduler, as
     * configured or sized by the announced round trip: the window's floor, which it grows above on demand.
     *
     * @return the credit window in bytes.
     */
    public long windowBytes()
    {
        return windowBytes;
    }

    /**
     * The window in force, which follows the senders' demand between {@link #windowBytes()} and
     * {@value #MAX_WINDOW_GROWTH} times the configured window. Read on the engines' thread.
     *
     * @return bytes.
     */
    public long adaptedWindowBytes()
    {
        return scheduler.windowBytes();
    }

    /**
     * Bytes granted and not yet received over every connected sender of every engine sharing the scheduler. Read on
     * the engines' thread.
     *
     * @return the outstanding credit in bytes.
     */
    public long outstandingBytes()
    {
        return scheduler.outstandingBytes();
    }

    /**
     * Senders with backlog at the last pass, over every engine sharing the scheduler. Read on the engines' thread.
     *
     * @return the fan-in.
     */
    public int activeSenders()
    {
        return scheduler.activeSenders();
    }

    /**
     * Check that an engine that joins the scheduler asks for the same credit settings.
     *
     * @param settings the joining engine's settings.
     * @throws IllegalArgumentException naming the first setting that differs.
     */
    public void checkSettings(final EngineSettings settings)
    {
        checkSame(Configuration.LINK_RATE_MBPS_PROP_NAME + " (or " + Configuration.CREDIT_RATE_MBPS_PROP_NAME + ")",
            budgetMbps(settings), budgetMbps);
        checkSame(Configuration.CREDIT_QUANTUM_PROP_NAME, settings.credit().creditQuantum(), quantum);
        checkSame(Configuration.CREDIT_WINDOW_BYTES_PROP_NAME, settings.credit().creditWindowBytes(),
            configuredWindowBytes);
        checkSame(Configuration.CC_SLACK_NS_PROP_NAME, settings.congestion().ccSlackNs(), slackNs);
        if (Double.compare(settings.credit().creditOvercommit(), overcommit) != 0)
        {
            throw new IllegalArgumentException(Configuration.CREDIT_OVERCOMMIT_PROP_NAME + "=" +
                settings.credit().creditOvercommit() + " differs from the shared credit scheduler's " + overcommit);
        }
    }

    /**
     * The scheduler itself, in which the receiver connections of every group sharing it take their client ids.
     *
     * @return the credit scheduler.
     */
    public CreditScheduler scheduler()
    {
        return scheduler;
    }

    /**
     * A connection took a client id of the scheduler: grants for it go to the connection.
     *
     * @param client     the client id the connection took.
     * @param connection the receiver connection its grants go to.
     */
    public void register(final int client, final ReceiverConnection connection)
    {
        if (client >= connectionsByClient.length)
        {
            connectionsByClient = Arrays.copyOf(connectionsByClient, Math.max(client + 1, client << 1));
        }
        connectionsByClient[client] = connection;
        onRttHint(connection.rttHintNs());
    }

    /**
     * A sender announced its base round trip: with the link's rate known, the window shrinks to
     * {@value #WINDOW_BDPS} bandwidth-delay products of the longest round trip announced when that is below the
     * configured window, and the quantum to an eighth of it when that is below the configured quantum. A window of
     * many BDPs lets the senders keep that much queued at the receiver's last hop; one a little over a BDP keeps the
     * link busy with a short queue.
     */
    private void onRttHint(final long rttHintNs)
    {
        if (rttHintNs <= largestRttHintNs || 0 == budgetMbps)
        {
            return;
        }
        largestRttHintNs = rttHintNs;
        final double bdp = (double)budgetMbps * BYTES_PER_SECOND_PER_MBPS * rttHintNs / 1e9;
        final long window = Math.min(configuredWindowBytes, (long)(WINDOW_BDPS * bdp));
        if (window != windowBytes)
        {
            // A window of a few quanta grants in lumps that leave the link idle between them: the quantum shrinks
            // with the window, to an eighth of it (the spec's informative quantum is min(64 KiB, BDP / 4)).
            final int windowQuantum = (int)Math.max(MIN_QUANTUM, Math.min(quantum, window / QUANTA_PER_WINDOW));
            windowBytes = Math.max(window, windowQuantum);
            scheduler.resize(windowBytes, windowQuantum);
        }
    }

    /**
     * A connection was freed: forget it, unless its client id already went to another connection.
     *
     * @param client     the client id the connection held.
     * @param connection the freed receiver connection.
     */
    public void unregister(final int client, final ReceiverConnection connection)
    {
        if (client < connectionsByClient.length && connectionsByClient[client] == connection)
        {
            connectionsByClient[client] = null;
        }
    }

    /**
     * Issue the grants the budget allows, one pass of {@link CreditScheduler#doWork(long, CreditGrantHandler)}, each
     * handed to the connection of its client id, whichever engine owns it.
     *
     * @param nowNs current time.
     * @return grants issued.
     */
    public int doWork(final long nowNs)
    {
        return scheduler.doWork(nowNs, grantHandler);
    }

    /**
     * When the token bucket next holds a quantum, while senders wait for one.
     *
     * @return the time in nanoseconds, or {@link Long#MAX_VALUE} when nothing waits for tokens.
     */
    public long nextDeadlineNs()
    {
        return scheduler.nextDeadlineNs();
    }

    private void onGrant(final int client, final long grantLimit)
    {
        final ReceiverConnection connection = connectionsByClient[client];
        if (null != connection)
        {
            connection.onGrant(grantLimit);
        }
    }

    private static long saturatedMultiply(final long value, final int factor)
    {
        return value > Long.MAX_VALUE / factor ? Long.MAX_VALUE : value * factor;
    }

    private static void check(final boolean condition, final String name, final Object value)
    {
        if (!condition)
        {
            throw new IllegalArgumentException("invalid " + name + "=" + value + " for the credit scheduler: " +
                "need rate >= 0, overcommit >= 0, quantum > 0, window >= quantum");
        }
    }

    private static void checkSame(final String name, final long requested, final long shared)
    {
        if (requested != shared)
        {
            throw new IllegalArgumentException(name + "=" + requested + " differs from the shared credit " +
                "scheduler's " + shared + ": every engine on one receiving link needs the same credit settings");
        }
    }
}
