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
package io.metaroce.driver;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.ConfigurationException;
import org.agrona.DirectBuffer;
import org.agrona.SystemUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.TimeUnit;

/**
 * Names and defaults of the driver's settings. Each is a system property ({@code -Dname=value}, or a line of a
 * properties file given to {@link MediaDriver#main(String[])}) and a setter of {@link MediaDriver.Context}. Sizes
 * take {@code k}, {@code m} and {@code g} suffixes; durations {@code ns}, {@code us}, {@code ms} and {@code s}.
 * The driver directory ({@code metaroce.dir}) and driver timeout ({@code metaroce.driver.timeout}) are shared with
 * clients: see {@link MetaRoce.Configuration}.
 */
public final class Configuration
{
    /**
     * Property: random drop rate of DATA datagrams per plane, a comma-separated list of rates in [0, 1] for planes
     * 0, 1, ... (missing planes drop nothing), applied on receive by every socket of the driver.
     */
    public static final String LOSS_DATA_RATE_PROP_NAME = "metaroce.loss.data.rate";

    /**
     * Property: random drop rate of control datagrams (all but DATA) per plane, as for
     * {@link #LOSS_DATA_RATE_PROP_NAME}.
     */
    public static final String LOSS_CONTROL_RATE_PROP_NAME = "metaroce.loss.control.rate";

    /**
     * Property: fixed loss pattern of DATA datagrams per plane, a comma-separated list of n (drop every n-th, 0 for
     * none).
     */
    public static final String LOSS_DATA_EVERY_PROP_NAME = "metaroce.loss.data.every";

    /**
     * Property: fixed loss pattern of control datagrams per plane, as for {@link #LOSS_DATA_EVERY_PROP_NAME}.
     */
    public static final String LOSS_CONTROL_EVERY_PROP_NAME = "metaroce.loss.control.every";

    /**
     * Property: seed of the random loss; default the current nano time; set it to
     * replay a random loss run.
     */
    public static final String LOSS_SEED_PROP_NAME = "metaroce.loss.seed";

    /**
     * Property: {@code true} to print every effective setting of the driver, with its value and where it came from,
     * when the driver starts ({@code ./metaroce driver --print-config} prints them without starting).
     */
    public static final String PRINT_CONFIGURATION_PROP_NAME = "metaroce.print.configuration";

    /**
     * Property: the packet I/O of network channels: {@code batched} ({@code sendmmsg}/{@code recvmmsg} and
     * segmentation offload through Netty's native epoll library, which falls back to {@code nio} with one line on
     * standard error where it cannot run) or {@code nio} (one system call per datagram).
     */
    public static final String TRANSPORT_PROP_NAME = "metaroce.transport";

    /**
     * Default packet I/O: {@code batched}, where it runs.
     */
    public static final String TRANSPORT_DEFAULT = "batched";

    /**
     * Property: most datagrams per system call of the {@code batched} transport, 2 to 1024.
     */
    public static final String TRANSPORT_BATCH_LENGTH_PROP_NAME = "metaroce.transport.batch.length";

    /**
     * Default datagrams per system call: 32.
     */
    public static final int TRANSPORT_BATCH_LENGTH_DEFAULT = 32;

    /**
     * Property: whether the {@code batched} transport sends runs of same-sized datagrams to one socket as one
     * segmented message ({@code UDP_SEGMENT}) and lets the kernel coalesce runs on receive ({@code UDP_GRO}).
     */
    public static final String TRANSPORT_SEGMENTATION_PROP_NAME = "metaroce.transport.segmentation";

    /**
     * Default segmentation offload: on.
     */
    public static final boolean TRANSPORT_SEGMENTATION_DEFAULT = true;

    /**
     * Property: the file of this driver's long-term X25519 private key (base64, readable by its owner only, no
     * symbolic link; {@code ./metaroce keygen} writes one). Set, the driver authenticates connections.
     */
    public static final String AUTH_KEY_FILE_PROP_NAME = "metaroce.auth.key.file";

    /**
     * Property: the allow-list of the drivers this one trusts, lines {@code <base64 public key> <name> [host ...]};
     * required with the key file.
     */
    public static final String AUTH_TRUSTED_PEERS_FILE_PROP_NAME = "metaroce.auth.trusted.peers.file";

    /**
     * Property: every network connection must authenticate, inbound (a SETUP without a handshake is dropped) and
     * outbound (a publication finds its receiver's key by {@code auth-peer} or by its endpoint's host).
     */
    public static final String AUTH_REQUIRE_PROP_NAME = "metaroce.auth.require";

    /**
     * Property: authenticated publications encrypt their DATA bodies ({@code true}) or only authenticate them; a
     * channel's {@code auth-mode} chooses for its publication.
     */
    public static final String AUTH_ENCRYPT_PROP_NAME = "metaroce.auth.encrypt";

    /**
     * Property: datagrams sealed under one key before it changes, 1024 to 2^23.
     */
    public static final String AUTH_KEY_UPDATE_PACKETS_PROP_NAME = "metaroce.auth.key.update.packets";

    /**
     * Property: threading mode, one of {@link ThreadingMode}.
     */
    public static final String THREADING_MODE_PROP_NAME = "metaroce.threading.mode";

    /**
     * Property: a group whose members may use the driver directory (files 0660, directories 0770, given to the group);
     * unset, the directory is owner-only.
     */
    public static final String DIR_GROUP_PROP_NAME = "metaroce.dir.group";

    /**
     * Property: delete the driver directory when the driver shuts down.
     */
    public static final String DIR_DELETE_ON_SHUTDOWN_PROP_NAME = "metaroce.dir.delete.on.shutdown";

    /**
     * Property: how long a client may stay silent before the driver times it out and frees its resources.
     */
    public static final String CLIENT_LIVENESS_TIMEOUT_PROP_NAME = "metaroce.client.liveness.timeout";

    /**
     * Default client liveness timeout: 10 s.
     */
    public static final long CLIENT_LIVENESS_TIMEOUT_DEFAULT_NS = TimeUnit.SECONDS.toNanos(10);

    /**
     * Property: interval of the conductor's timers: driver heartbeat, client liveness, unblocking, lingering.
     */
    public static final String TIMER_INTERVAL_PROP_NAME = "metaroce.timer.interval";

    /**
     * Default timer interval: 100 ms.
     */
    public static final long TIMER_INTERVAL_DEFAULT_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Property: how long consumers may be stuck behind an uncommitted frame before the driver pads it out.
     */
    public static final String PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME = "metaroce.publication.unblock.timeout";

    /**
     * Default publication unblock timeout: 15 s.
     */
    public static final long PUBLICATION_UNBLOCK_TIMEOUT_DEFAULT_NS = TimeUnit.SECONDS.toNanos(15);

    /**
     * Property: how long a released publication waits for its subscribers to drain, and then keeps its log.
     */
    public static final String PUBLICATION_LINGER_TIMEOUT_PROP_NAME = "metaroce.publication.linger.timeout";

    /**
     * Default publication linger timeout: 5 s.
     */
    public static final long PUBLICATION_LINGER_TIMEOUT_DEFAULT_NS = TimeUnit.SECONDS.toNanos(5);

    /**
     * Property: default term length of IPC publications.
     */
    public static final String IPC_TERM_LENGTH_PROP_NAME = "metaroce.ipc.term.length";

    /**
     * Default IPC term length: 16 MiB.
     */
    public static final int IPC_TERM_LENGTH_DEFAULT = 16 * 1024 * 1024;

    /**
     * Property: default MTU of IPC publications (longest frame, header included).
     */
    public static final String IPC_MTU_PROP_NAME = "metaroce.ipc.mtu";

    /**
     * Default IPC MTU: 1408 bytes.
     */
    public static final int IPC_MTU_DEFAULT = 1408;

    /**
     * Largest MTU: the largest UDP payload, so that frames fit the network transport too.
     */
    public static final int MAX_MTU = 65504;

    /**
     * Ended images whose end positions a receive endpoint remembers, the oldest forgotten first: a session that
     * comes back after more than this many others ended may deliver again what its earlier image delivered.
     */
    public static final int IMAGE_ENDS_REMEMBERED = 4096;

    /**
     * Image logs a receive endpoint has asked the conductor for and no stream has taken yet (being created, or
     * created and waiting for the engine to ask again): a STREAM_OPEN for another session beyond this many waits
     * (STREAM_ACK(NOT_READY)) until one is taken or freed, so a flood of openings for distinct sessions cannot make
     * the conductor create logs without bound.
     */
    public static final int PENDING_IMAGES_MAX = 16;

    /**
     * Bytes of an image log the conductor zero-fills per duty cycle, so that a large log (3 GiB at 1 GiB terms)
     * never stalls the conductor's other work for longer than one chunk takes.
     */
    public static final int IMAGE_LOG_FILL_CHUNK_LENGTH = 4 * 1024 * 1024;

    /**
     * Property: usable space of the driver directory's file system that image logs (created for remote senders) must
     * leave free, so that local clients can still add publications: an image log is created only if the usable
     * space after it would still be at least this much; otherwise the stream is refused (RESOURCE_EXHAUSTED). Unset,
     * it is the default or an eighth of the file system if that is less, so that a small /dev/shm still takes images.
     */
    public static final String IMAGE_STORAGE_RESERVE_PROP_NAME = "metaroce.image.storage.reserve";

    /**
     * Default of {@link #IMAGE_STORAGE_RESERVE_PROP_NAME}: 64 MiB.
     */
    public static final long IMAGE_STORAGE_RESERVE_DEFAULT = 64L * 1024 * 1024;

    /**
     * Property: default term window of IPC publications; 0 means half the term length.
     */
    public static final String IPC_TERM_WINDOW_PROP_NAME = "metaroce.ipc.term.window";

    /**
     * Property: create log files sparse instead of allocating them up front.
     */
    public static final String TERM_SPARSE_FILE_PROP_NAME = "metaroce.term.sparse.file";

    /**
     * Property: page size of the file system holding the logs.
     */
    public static final String FILE_PAGE_SIZE_PROP_NAME = "metaroce.file.page.size";

    /**
     * Default file page size: 4 KiB.
     */
    public static final int FILE_PAGE_SIZE_DEFAULT = 4 * 1024;

    /**
     * Property: capacity of the to-driver command ring (a power of two; the trailer is added).
     */
    public static final String TO_DRIVER_BUFFER_LENGTH_PROP_NAME = "metaroce.to.driver.buffer.length";

    /**
     * Property: capacity of the to-clients event broadcast (a power of two; the trailer is added).
     */
    public static final String TO_CLIENTS_BUFFER_LENGTH_PROP_NAME = "metaroce.to.clients.buffer.length";

    /**
     * Property: length of the counters values buffer (a power of two); the metadata buffer is four times longer.
     */
    public static final String COUNTERS_BUFFER_LENGTH_PROP_NAME = "metaroce.counters.buffer.length";

    /**
     * Property: length of the distinct error log.
     */
    public static final String ERROR_BUFFER_LENGTH_PROP_NAME = "metaroce.error.buffer.length";

    /**
     * Default length of the command ring, the event broadcast and the error log: 1 MiB each.
     */
    public static final int CNC_BUFFER_LENGTH_DEFAULT = 1024 * 1024;

    /**
     * Default length of the counters values buffer: 4 MiB, 32,768 counters of 128 bytes (with the 16 MiB of their
     * metadata 20 MiB of the CnC file), so that one driver holds 4,000 network publications over 4 planes and 4,000
     * network images with a subscriber each, 7 counters a pair, with more than 10 % to spare.
     */
    public static final int COUNTERS_BUFFER_LENGTH_DEFAULT = 4 * 1024 * 1024;

    /**
     * Property: how long a freed counter stays unused before it may be reallocated.
     */
    public static final String COUNTER_FREE_TO_REUSE_TIMEOUT_PROP_NAME = "metaroce.counters.free.to.reuse.timeout";

    /**
     * Default counter free-to-reuse timeout: 1 s.
     */
    public static final long COUNTER_FREE_TO_REUSE_TIMEOUT_DEFAULT_NS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Property: most publications (sessions) one stream id may have at once.
     */
    public static final String STREAM_SESSION_LIMIT_PROP_NAME = "metaroce.stream.session.limit";

    /**
     * Property: most destinations one multi-destination publication may have at once, given in its channel and added
     * at run time.
     */
    public static final String PUBLICATION_DESTINATIONS_MAX_PROP_NAME = "metaroce.publication.destinations.max";

    /**
     * Default most destinations per multi-destination publication.
     */
    public static final int PUBLICATION_DESTINATIONS_MAX_DEFAULT = 64;

    /**
     * Highest {@link #PUBLICATION_DESTINATIONS_MAX_PROP_NAME}: the conductor visits every destination of a
     * publication on each of its duty cycles.
     */
    public static final int PUBLICATION_DESTINATIONS_MAX_LIMIT = 1024;

    /**
     * Property: duty cycle length above which a cycle is counted as exceeding the threshold.
     */
    public static final String CYCLE_THRESHOLD_PROP_NAME = "metaroce.cycle.threshold";

    /**
     * Default cycle threshold: 1 s.
     */
    public static final long CYCLE_THRESHOLD_DEFAULT_NS = TimeUnit.SECONDS.toNanos(1);

    /**
     * Property: token a TERMINATE_DRIVER command must carry (UTF-8); without it termination commands are refused.
     */
    public static final String TERMINATION_TOKEN_PROP_NAME = "metaroce.driver.termination.token";

    /**
     * Property: idle strategy of the conductor thread (DEDICATED and SHARED_NETWORK).
     */
    public static final String CONDUCTOR_IDLE_STRATEGY_PROP_NAME = "metaroce.conductor.idle.strategy";

    /**
     * Property: idle strategy of the sender thread (DEDICATED).
     */
    public static final String SENDER_IDLE_STRATEGY_PROP_NAME = "metaroce.sender.idle.strategy";

    /**
     * Property: idle strategy of the receiver thread (DEDICATED).
     */
    public static final String RECEIVER_IDLE_STRATEGY_PROP_NAME = "metaroce.receiver.idle.strategy";

    /**
     * Property: idle strategy of the sender-and-receiver thread (SHARED_NETWORK).
     */
    public static final String SHARED_NETWORK_IDLE_STRATEGY_PROP_NAME = "metaroce.shared.network.idle.strategy";

    /**
     * Property: idle strategy of the single driver thread (SHARED).
     */
    public static final String SHARED_IDLE_STRATEGY_PROP_NAME = "metaroce.shared.idle.strategy";

    /**
     * Default idle strategy of every agent.
     */
    public static final String IDLE_STRATEGY_DEFAULT = "backoff";

    /**
     * Property: CPU to pin the conductor thread to, -1 for none.
     */
    public static final String CONDUCTOR_CPU_PROP_NAME = "metaroce.conductor.cpu";

    /**
     * Property: CPU to pin the sender thread to, -1 for none.
     */
    public static final String SENDER_CPU_PROP_NAME = "metaroce.sender.cpu";

    /**
     * Property: CPU to pin the receiver thread to, -1 for none.
     */
    public static final String RECEIVER_CPU_PROP_NAME = "metaroce.receiver.cpu";

    /**
     * Property: CPU to pin the sender-and-receiver thread to, -1 for none.
     */
    public static final String SHARED_NETWORK_CPU_PROP_NAME = "metaroce.shared.network.cpu";

    /**
     * Property: CPU to pin the single driver thread to, -1 for none.
     */
    public static final String SHARED_CPU_PROP_NAME = "metaroce.shared.cpu";

    /**
     * No CPU pinning.
     */
    public static final int NO_CPU = -1;

    private Configuration()
    {
    }

    /**
     * Create an idle strategy from its configured name.
     *
     * @param propertyName the value came from, for the error message.
     * @param value        {@code spin}, {@code noop}, {@code yield}, {@code backoff}, {@code sleep-ns:<n>} or
     *                     the name of a class with a public no-argument constructor.
     * @return a new idle strategy.
     * @throws ConfigurationException naming the property if the value is not valid.
     */
    public static IdleStrategy idleStrategy(final String propertyName, final String value)
    {
        final String name = null == value ? IDLE_STRATEGY_DEFAULT : value.trim();
        switch (name)
        {
            case "spin":
                return new BusySpinIdleStrategy();
            case "noop":
                return new NoOpIdleStrategy();
            case "yield":
                return new YieldingIdleStrategy();
            case "backoff":
                return new BackoffIdleStrategy();
            default:
                break;
        }

        if (name.startsWith("sleep-ns:"))
        {
            try
            {
                final long sleepNs = Long.parseLong(name.substring("sleep-ns:".length()));
                if (sleepNs > 0)
                {
                    return new SleepingIdleStrategy(sleepNs);
                }
            }
            catch (final NumberFormatException ignore)
            {
                // reported below
            }
            throw new ConfigurationException(propertyName + " must be sleep-ns:<n> with n a positive number of ns: " +
                name);
        }

        final String reason;
        try
        {
            return (IdleStrategy)Class.forName(name).getConstructor().newInstance();
        }
        catch (final ClassNotFoundException ex)
        {
            reason = "no such class";
        }
        catch (final ClassCastException ex)
        {
            reason = "not an IdleStrategy";
        }
        catch (final ReflectiveOperationException ex)
        {
            // The exception's own text would show the class name, the value, a second time.
            reason = "cannot be created: " + ex.getClass().getSimpleName();
        }

        throw new ConfigurationException(propertyName + " must be spin, noop, yield, backoff, sleep-ns:<n> or an " +
            "IdleStrategy class with a public no-argument constructor (" + reason + "): " + name);
    }

    /**
     * Idle strategy named by a property, or the default.
     *
     * @param propertyName to read.
     * @return a new idle strategy.
     */
    public static IdleStrategy idleStrategy(final String propertyName)
    {
        return idleStrategy(propertyName, System.getProperty(propertyName, IDLE_STRATEGY_DEFAULT));
    }

    /**
     * The default termination validator: allows termination only when a token is configured and matches exactly.
     *
     * @param token configured, or null to deny every request.
     * @return the validator.
     */
    public static TerminationValidator tokenTerminationValidator(final String token)
    {
        if (null == token || token.isEmpty())
        {
            return (directory, buffer, offset, length) -> false;
        }

        final byte[] expected = token.getBytes(StandardCharsets.UTF_8);
        return (directory, buffer, offset, length) -> MessageDigest.isEqual(expected, bytes(buffer, offset, length));
    }

    static boolean booleanProperty(final String name, final boolean defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value)
        {
            return defaultValue;
        }
        // Boolean.getBoolean would take a misspelled "ture" for false.
        final String trimmed = value.trim();
        if ("true".equalsIgnoreCase(trimmed) || "false".equalsIgnoreCase(trimmed))
        {
            return Boolean.parseBoolean(trimmed);
        }
        throw new ConfigurationException(name + " must be true or false: " + value);
    }

    static int intProperty(final String name, final int defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value)
        {
            return defaultValue;
        }

        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigurationException(name + " must be an integer: " + value);
        }
    }

    /**
     * Seed of the random loss of {@link NetworkLossGenerator}.
     *
     * @return the value of {@link #LOSS_SEED_PROP_NAME}, or the current nano time.
     * @throws ConfigurationException naming the property if the value is not an integer.
     */
    public static long lossSeed()
    {
        final String value = System.getProperty(LOSS_SEED_PROP_NAME);
        if (null == value)
        {
            return System.nanoTime();
        }

        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigurationException(LOSS_SEED_PROP_NAME + " must be an integer: " + value);
        }
    }

    static int sizeProperty(final String name, final int defaultValue)
    {
        try
        {
            return SystemUtil.getSizeAsInt(name, defaultValue);
        }
        catch (final RuntimeException ex)
        {
            // Agrona's message names the property and the value again, or shows only part of the value.
            throw new ConfigurationException(
                name + " must be a size such as 65536, 64k or 16m (less than 2 GiB): " + System.getProperty(name));
        }
    }

    static long durationProperty(final String name, final long defaultValueNs)
    {
        try
        {
            return SystemUtil.getDurationInNanos(name, defaultValueNs);
        }
        catch (final RuntimeException ex)
        {
            throw new ConfigurationException(
                name + " must be a duration such as 500ms or 10s: " + System.getProperty(name));
        }
    }

    static long longSizeProperty(final String name, final long defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value)
        {
            return defaultValue;
        }

        try
        {
            return SystemUtil.parseSize(name, value.trim());
        }
        catch (final RuntimeException ex)
        {
            // Agrona's message names the property and the value again.
            throw new ConfigurationException(name + " must be a size such as 0, 65536, 64m or 2g: " + value);
        }
    }

    private static byte[] bytes(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }
}
