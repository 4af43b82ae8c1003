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
package io.metaroce.client;

import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.config.AgronaAccess;
import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.client.exceptions.DriverTimeoutException;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.SystemUtil;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client of a media driver: the entry point of the API. {@link #connect(Context)} maps the driver's CnC file in
 * the driver directory and starts the client conductor; publications, subscriptions and counters are then added
 * through the driver and used directly through shared memory.
 * <pre>{@code
 * try (MetaRoce client = MetaRoce.connect();
 *      Publication publication = client.addPublication("metaroce:ipc", 1001))
 * {
 *     publication.offer(buffer, 0, length);
 * }
 * }</pre>
 * Thread safe: API calls are serialised by the client lock. By default the conductor runs on a thread of its own;
 * with {@link Context#useConductorAgentInvoker(boolean)} the application drives it through
 * {@link #conductorAgentInvoker()} and must invoke it at least every keepalive interval.
 */
public final class MetaRoce implements AutoCloseable
{
    /**
     * Property names and defaults of the client. Every setting can be given as a system property and overridden on
     * the {@link Context}.
     */
    public static final class Configuration
    {
        /**
         * Property: the driver directory, shared with the driver.
         */
        public static final String DIR_PROP_NAME = "metaroce.dir";

        /**
         * Property: how long a silent driver is still considered alive, and how long to wait for an answer.
         */
        public static final String DRIVER_TIMEOUT_PROP_NAME = "metaroce.driver.timeout";

        /**
         * Default driver timeout: 10 s.
         */
        public static final long DRIVER_TIMEOUT_DEFAULT_NS = TimeUnit.SECONDS.toNanos(10);

        /**
         * Property: interval of the client's heartbeat and of its check of the driver's heartbeat.
         */
        public static final String KEEPALIVE_INTERVAL_PROP_NAME = "metaroce.client.keepalive.interval";

        /**
         * Default keepalive interval: 500 ms.
         */
        public static final long KEEPALIVE_INTERVAL_DEFAULT_NS = TimeUnit.MILLISECONDS.toNanos(500);

        /**
         * Property: how long released log buffers stay mapped before they are unmapped.
         */
        public static final String RESOURCE_LINGER_DURATION_PROP_NAME = "metaroce.client.resource.linger.duration";

        /**
         * Default resource linger duration: 3 s.
         */
        public static final long RESOURCE_LINGER_DURATION_DEFAULT_NS = TimeUnit.SECONDS.toNanos(3);

        /**
         * Property: how long the conductor thread sleeps when it has nothing to do.
         */
        public static final String IDLE_SLEEP_DURATION_PROP_NAME = "metaroce.client.idle.sleep.duration";

        /**
         * Default conductor idle sleep: 16 ms.
         */
        public static final long IDLE_SLEEP_DURATION_DEFAULT_NS = TimeUnit.MILLISECONDS.toNanos(16);

        /**
         * Default error handler: prints to standard error.
         */
        public static final ErrorHandler DEFAULT_ERROR_HANDLER = (throwable) ->
        {
            synchronized (System.err)
            {
                System.err.println("metaroce client error: " + throwable);
                throwable.printStackTrace(System.err);
            }
        };

        private Configuration()
        {
        }

        /**
         * Default driver directory: {@code /dev/shm/metaroce-<user>} where {@code /dev/shm} exists, otherwise
         * {@code <java.io.tmpdir>/metaroce-<user>}.
         *
         * @return the directory name.
         */
        public static String defaultDirectoryName()
        {
            final String base = SystemUtil.isLinux() && new File("/dev/shm").isDirectory() ?
                "/dev/shm" : SystemUtil.tmpDirName();
            final String user = System.getProperty("user.name", "default").replaceAll("[^A-Za-z0-9._-]", "_");
            return new File(base, "metaroce-" + user).getPath();
        }

        /**
         * Driver directory from the property, or the default.
         *
         * @return the directory name.
         */
        public static String directoryName()
        {
            final String name = System.getProperty(DIR_PROP_NAME);
            return null == name || name.isEmpty() ? defaultDirectoryName() : name;
        }

        /**
         * Driver timeout from the property, or the default.
         *
         * @return nanoseconds.
         * @throws ConfigurationException naming the property if its value is not a duration.
         */
        public static long driverTimeoutNs()
        {
            return durationProperty(DRIVER_TIMEOUT_PROP_NAME, DRIVER_TIMEOUT_DEFAULT_NS);
        }

        private static long durationProperty(final String name, final long defaultValueNs)
        {
            try
            {
                return SystemUtil.getDurationInNanos(name, defaultValueNs);
            }
            catch (final RuntimeException ex)
            {
                // Agrona's message lacks the property name, repeats it, or shows only part of the value.
                throw new ConfigurationException(
                    name + " must be a duration such as 500ms or 10s: " + System.getProperty(name));
            }
        }

        /**
         * A duration as its property gave it ({@code 500us}) when the setting is the property's, so that a message
         * shows what was written; otherwise in nanoseconds, as code set it.
         */
        private static String asGiven(final String name, final long valueNs)
        {
            final String text = System.getProperty(name);
            try
            {
                if (null != text && SystemUtil.parseDuration(name, text.trim()) == valueNs)
                {
                    return text.trim();
                }
            }
            catch (final RuntimeException ignore)
            {
                // the property does not hold this value: code set it
            }

            final long[] unitsNs = { TimeUnit.SECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1), 1_000L };
            final String[] units = { "s", "ms", "us" };
            for (int i = 0; i < unitsNs.length; i++)
            {
                if (0 != valueNs && 0 == valueNs % unitsNs[i])
                {
                    return valueNs / unitsNs[i] + units[i];
                }
            }

            return valueNs + "ns";
        }
    }

    /**
     * Settings of a client, read from system properties when created and validated by {@link #conclude()}. One
     * context per client.
     */
    public static final class Context
    {
        private boolean isConcluded;
        private String directoryName = Configuration.directoryName();
        private long driverTimeoutNs = Configuration.driverTimeoutNs();
        private long keepaliveIntervalNs = Configuration.durationProperty(
            Configuration.KEEPALIVE_INTERVAL_PROP_NAME, Configuration.KEEPALIVE_INTERVAL_DEFAULT_NS);
        private long resourceLingerDurationNs = Configuration.durationProperty(
            Configuration.RESOURCE_LINGER_DURATION_PROP_NAME, Configuration.RESOURCE_LINGER_DURATION_DEFAULT_NS);
        private long idleSleepDurationNs = Configuration.durationProperty(
            Configuration.IDLE_SLEEP_DURATION_PROP_NAME, Configuration.IDLE_SLEEP_DURATION_DEFAULT_NS);
        private boolean useConductorAgentInvoker;
        private AgentInvoker driverAgentInvoker;
        private IdleStrategy idleStrategy;
        private IdleStrategy awaitingIdleStrategy;
        private ErrorHandler errorHandler;
        private AvailableImageHandler availableImageHandler;
        private UnavailableImageHandler unavailableImageHandler;
        private EpochClock epochClock;
        private NanoClock nanoClock;
        private ThreadFactory threadFactory;
        private final ReentrantLock clientLock = new ReentrantLock();

        /**
         * Validate the settings and fill in defaults. Called by {@link MetaRoce#connect(Context)}. First checks that
         * the JVM has the flag Agrona needs and that every {@code metaroce.*} system property is one a module on the
         * class path knows ({@link PropertyRegistry}).
         *
         * @return this for a fluent API.
         * @throws ConfigurationException naming the first invalid setting, an unknown property or the missing flag.
         */
        public Context conclude()
        {
            if (isConcluded)
            {
                throw new ConfigurationException("context already concluded: use one Context per client");
            }
            isConcluded = true;
            AgronaAccess.check("the client");
            PropertyRegistry.checkSystemProperties("the client", System.err);

            if (null == directoryName || directoryName.isEmpty())
            {
                throw new ConfigurationException(Configuration.DIR_PROP_NAME + " must not be empty");
            }

            if (driverTimeoutNs < TimeUnit.MILLISECONDS.toNanos(1))
            {
                throw new ConfigurationException(Configuration.DRIVER_TIMEOUT_PROP_NAME + " must be at least 1ms: " +
                    Configuration.asGiven(Configuration.DRIVER_TIMEOUT_PROP_NAME, driverTimeoutNs));
            }

            if (keepaliveIntervalNs <= 0 || keepaliveIntervalNs >= driverTimeoutNs)
            {
                throw new ConfigurationException(Configuration.KEEPALIVE_INTERVAL_PROP_NAME + " must be positive and " +
                    "less than " + Configuration.DRIVER_TIMEOUT_PROP_NAME + " (" +
                    Configuration.asGiven(Configuration.DRIVER_TIMEOUT_PROP_NAME, driverTimeoutNs) + "): " +
                    Configuration.asGiven(Configuration.KEEPALIVE_INTERVAL_PROP_NAME, keepaliveIntervalNs));
            }

            if (resourceLingerDurationNs < 0)
            {
                throw new ConfigurationException(Configuration.RESOURCE_LINGER_DURATION_PROP_NAME +
                    " must not be negative: " +
                    Configuration.asGiven(Configuration.RESOURCE_LINGER_DURATION_PROP_NAME, resourceLingerDurationNs));
            }

            if (idleSleepDurationNs <= 0)
            {
                throw new ConfigurationException(Configuration.IDLE_SLEEP_DURATION_PROP_NAME +
                    " must be positive: " +
                    Configuration.asGiven(Configuration.IDLE_SLEEP_DURATION_PROP_NAME, idleSleepDurationNs));
            }

            if (null == idleStrategy)
            {
                idleStrategy = new SleepingIdleStrategy(Math.min(idleSleepDurationNs, keepaliveIntervalNs / 2));
            }

            if (null == awaitingIdleStrategy)
            {
                awaitingIdleStrategy = new BackoffIdleStrategy(
                    10, 10, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
            }

            if (null == errorHandler)
            {
                errorHandler = Configuration.DEFAULT_ERROR_HANDLER;
            }

            if (null == epochClock)
            {
                epochClock = SystemEpochClock.INSTANCE;
            }

            if (null == nanoClock)
            {
                nanoClock = SystemNanoClock.INSTANCE;
            }

            return this;
        }

        /**
         * Set the driver directory.
         *
         * @param directoryName of the driver.
         * @return this for a fluent API.
         */
        public Context directoryName(final String directoryName)
        {
            this.directoryName = directoryName;
            return this;
        }

        /**
         * Driver directory.
         *
         * @return the directory name.
         */
        public String directoryName()
        {
            return directoryName;
        }

        /**
         * Set the driver timeout.
         *
         * @param timeoutMs how long a silent driver is still considered alive, and how long to await an answer.
         * @return this for a fluent API.
         */
        public Context driverTimeoutMs(final long timeoutMs)
        {
            this.driverTimeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            return this;
        }

        /**
         * Driver timeout.
         *
         * @return milliseconds.
         */
        public long driverTimeoutMs()
        {
            return TimeUnit.NANOSECONDS.toMillis(driverTimeoutNs);
        }

        /**
         * Set the keepalive interval.
         *
         * @param intervalNs of the client heartbeat and of the driver liveness check.
         * @return this for a fluent API.
         */
        public Context keepaliveIntervalNs(final long intervalNs)
        {
            this.keepaliveIntervalNs = intervalNs;
            return this;
        }

        /**
         * Keepalive interval.
         *
         * @return nanoseconds.
         */
        public long keepaliveIntervalNs()
        {
            return keepaliveIntervalNs;
        }

        /**
         * Set how long released log buffers stay mapped.
         *
         * @param durationNs of the linger.
         * @return this for a fluent API.
         */
        public Context resourceLingerDurationNs(final long durationNs)
        {
            this.resourceLingerDurationNs = durationNs;
            return this;
        }

        /**
         * How long released log buffers stay mapped.
         *
         * @return nanoseconds.
         */
        public long resourceLingerDurationNs()
        {
            return resourceLingerDurationNs;
        }

        /**
         * Run the conductor on the application's thread through {@link MetaRoce#conductorAgentInvoker()} instead of
         * a thread of its own.
         *
         * @param useConductorAgentInvoker true for invoker mode.
         * @return this for a fluent API.
         */
        public Context useConductorAgentInvoker(final boolean useConductorAgentInvoker)
        {
            this.useConductorAgentInvoker = useConductorAgentInvoker;
            return this;
        }

        /**
         * Does the application drive the conductor?
         *
         * @return true in invoker mode.
         */
        public boolean useConductorAgentInvoker()
        {
            return useConductorAgentInvoker;
        }

        /**
         * Set the invoker of a media driver that runs on the application's thread ({@code ThreadingMode.INVOKER},
         * its {@code sharedAgentInvoker()}): the client invokes it while it waits for the driver's answer to a
         * command, which otherwise could never come, since the thread that would run the driver is the one waiting.
         *
         * @param driverAgentInvoker the driver's invoker, or null when the driver runs threads of its own.
         * @return this for a fluent API.
         */
        public Context driverAgentInvoker(final AgentInvoker driverAgentInvoker)
        {
            this.driverAgentInvoker = driverAgentInvoker;
            return this;
        }

        /**
         * The invoker of a driver on the application's thread, invoked while awaiting the driver.
         *
         * @return the invoker, or null.
         */
        public AgentInvoker driverAgentInvoker()
        {
            return driverAgentInvoker;
        }

        /**
         * Set the idle strategy of the conductor thread.
         *
         * @param idleStrategy for the conductor thread.
         * @return this for a fluent API.
         */
        public Context idleStrategy(final IdleStrategy idleStrategy)
        {
            this.idleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the conductor thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy idleStrategy()
        {
            return idleStrategy;
        }

        /**
         * Set the idle strategy used while awaiting the driver's answer to a command.
         *
         * @param idleStrategy while awaiting.
         * @return this for a fluent API.
         */
        public Context awaitingIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.awaitingIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy used while awaiting the driver's answer to a command.
         *
         * @return the idle strategy.
         */
        public IdleStrategy awaitingIdleStrategy()
        {
            return awaitingIdleStrategy;
        }

        /**
         * Set the handler of asynchronous errors: driver and client timeouts, exceptions from fragment and image
         * handlers, malformed events.
         *
         * @param errorHandler to call.
         * @return this for a fluent API.
         */
        public Context errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        /**
         * Handler of asynchronous errors.
         *
         * @return the error handler.
         */
        public ErrorHandler errorHandler()
        {
            return errorHandler;
        }

        /**
         * Set the handler told of new images on every subscription added without one of its own.
         *
         * @param handler the handler, or null for none.
         * @return this for a fluent API.
         */
        public Context availableImageHandler(final AvailableImageHandler handler)
        {
            this.availableImageHandler = handler;
            return this;
        }

        /**
         * Handler told of new images on every subscription added without one of its own.
         *
         * @return the handler, or null.
         */
        public AvailableImageHandler availableImageHandler()
        {
            return availableImageHandler;
        }

        /**
         * Set the handler told of images that went away on every subscription added without one of its own.
         *
         * @param handler the handler, or null for none.
         * @return this for a fluent API.
         */
        public Context unavailableImageHandler(final UnavailableImageHandler handler)
        {
            this.unavailableImageHandler = handler;
            return this;
        }

        /**
         * Handler told of images that went away on every subscription added without one of its own.
         *
         * @return the handler, or null.
         */
        public UnavailableImageHandler unavailableImageHandler()
        {
            return unavailableImageHandler;
        }

        /**
         * Set the wall clock (heartbeats are epoch milliseconds shared with the driver).
         *
         * @param epochClock to use.
         * @return this for a fluent API.
         */
        public Context epochClock(final EpochClock epochClock)
        {
            this.epochClock = epochClock;
            return this;
        }

        /**
         * Wall clock.
         *
         * @return the epoch clock.
         */
        public EpochClock epochClock()
        {
            return epochClock;
        }

        /**
         * Set the monotonic clock for intervals and deadlines.
         *
         * @param nanoClock to use.
         * @return this for a fluent API.
         */
        public Context nanoClock(final NanoClock nanoClock)
        {
            this.nanoClock = nanoClock;
            return this;
        }

        /**
         * Monotonic clock.
         *
         * @return the nano clock.
         */
        public NanoClock nanoClock()
        {
            return nanoClock;
        }

        /**
         * Set the factory of the conductor thread.
         *
         * @param threadFactory to use, or null for a plain thread named after the conductor.
         * @return this for a fluent API.
         */
        public Context threadFactory(final ThreadFactory threadFactory)
        {
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * Factory of the conductor thread.
         *
         * @return the thread factory, or null.
         */
        public ThreadFactory threadFactory()
        {
            return threadFactory;
        }

        ReentrantLock clientLock()
        {
            return clientLock;
        }
    }

    private final Context ctx;
    private final CncFile cncFile;
    private final ClientConductor conductor;
    private final AgentRunner conductorRunner;
    private final AgentInvoker conductorInvoker;
    private volatile boolean isClosed;

    private MetaRoce(final Context ctx, final CncFile cncFile)
    {
        this.ctx = ctx;
        this.cncFile = cncFile;
        this.conductor = new ClientConductor(ctx, cncFile);

        if (ctx.useConductorAgentInvoker())
        {
            conductorRunner = null;
            conductorInvoker = new AgentInvoker(ctx.errorHandler(), null, conductor);
            conductorInvoker.start();
        }
        else
        {
            conductorInvoker = null;
            conductorRunner = new AgentRunner(ctx.idleStrategy(), ctx.errorHandler(), null, conductor);
            if (null == ctx.threadFactory())
            {
                AgentRunner.startOnThread(conductorRunner);
            }
            else
            {
                AgentRunner.startOnThread(conductorRunner, ctx.threadFactory());
            }
        }
    }

    /**
     * Connect to the driver of the directory given by the system properties.
     *
     * @return the connected client.
     */
    public static MetaRoce connect()
    {
        return connect(new Context());
    }

    /**
     * Connect to a driver: wait up to the driver timeout for its CnC file, check the version and that the driver
     * heartbeats, then start the client conductor.
     *
     * @param ctx settings of the client; concluded here.
     * @return the connected client.
     * @throws DriverTimeoutException if no live driver is found in time.
     * @throws ConfigurationException if a setting is invalid, or at once if this process may not use the driver's
     *                                directory or CnC file (permission denied).
     */
    public static MetaRoce connect(final Context ctx)
    {
        ctx.conclude();
        final CncFile cncFile = CncFile.awaitAndMap(
            new File(ctx.directoryName()), ctx.driverTimeoutMs(), ctx.epochClock());

        try
        {
            final long heartbeatAgeMs = ctx.epochClock().time() - cncFile.driverHeartbeatMs();
            if (heartbeatAgeMs > ctx.driverTimeoutMs())
            {
                throw new DriverTimeoutException("no active media driver in " + ctx.directoryName() +
                    ": last heartbeat " + heartbeatAgeMs + " ms ago (driver timeout " + ctx.driverTimeoutMs() + " ms)");
            }

            final long livenessTimeoutNs = cncFile.clientLivenessTimeoutNs();
            if (ctx.keepaliveIntervalNs() > livenessTimeoutNs / 2)
            {
                throw new ConfigurationException(Configuration.KEEPALIVE_INTERVAL_PROP_NAME + " (" +
                    ctx.keepaliveIntervalNs() + " ns) must be at most half the driver's client liveness timeout (" +
                    livenessTimeoutNs + " ns), preferably a tenth");
            }

            return new MetaRoce(ctx, cncFile);
        }
        catch (final RuntimeException ex)
        {
            cncFile.close();
            throw ex;
        }
    }

    /**
     * Add a concurrent publication, shared with every other concurrent publication on the same channel and stream.
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the publication.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public ConcurrentPublication addPublication(final String channel, final int streamId)
    {
        return conductor.addPublication(checkChannel(channel), streamId);
    }

    /**
     * Add an exclusive publication: a log of its own, a single writer.
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the publication.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public ExclusivePublication addExclusivePublication(final String channel, final int streamId)
    {
        return conductor.addExclusivePublication(checkChannel(channel), streamId);
    }

    /**
     * Add a subscription, with the context's image handlers ({@link Context#availableImageHandler()} and
     * {@link Context#unavailableImageHandler()}).
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the subscription.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public Subscription addSubscription(final String channel, final int streamId)
    {
        return addSubscription(channel, streamId, ctx.availableImageHandler(), ctx.unavailableImageHandler());
    }

    /**
     * Add a subscription, with handlers told when publishers' images come and go, in place of the context's.
     *
     * @param channel                 URI, such as {@code metaroce:ipc}.
     * @param streamId                of the stream.
     * @param availableImageHandler   told of new images, or null.
     * @param unavailableImageHandler told of images that went away, or null.
     * @return the subscription.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public Subscription addSubscription(
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        return conductor.addSubscription(
            checkChannel(channel), streamId, availableImageHandler, unavailableImageHandler);
    }

    /**
     * Ask for a concurrent publication without waiting for the driver's answer (Aeron's
     * {@code asyncAddPublication}): poll {@link #getPublication(long)} with the returned id, for example from the
     * duty cycle of an agent that must not block.
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the registration id of the publication to come.
     */
    public long asyncAddPublication(final String channel, final int streamId)
    {
        return conductor.asyncAdd(PendingRegistration.Kind.PUBLICATION, checkChannel(channel), streamId, null, null);
    }

    /**
     * Ask for an exclusive publication without waiting for the driver's answer: poll
     * {@link #getExclusivePublication(long)} with the returned id.
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the registration id of the publication to come.
     */
    public long asyncAddExclusivePublication(final String channel, final int streamId)
    {
        return conductor.asyncAdd(
            PendingRegistration.Kind.EXCLUSIVE_PUBLICATION, checkChannel(channel), streamId, null, null);
    }

    /**
     * Ask for a subscription, with the context's image handlers, without waiting for the driver's answer: poll
     * {@link #getSubscription(long)} with the returned id.
     *
     * @param channel  URI, such as {@code metaroce:ipc}.
     * @param streamId of the stream.
     * @return the registration id of the subscription to come.
     */
    public long asyncAddSubscription(final String channel, final int streamId)
    {
        return asyncAddSubscription(channel, streamId, ctx.availableImageHandler(), ctx.unavailableImageHandler());
    }

    /**
     * Ask for a subscription with its own image handlers without waiting for the driver's answer: poll
     * {@link #getSubscription(long)} with the returned id. Images that come before the application collects the
     * subscription are told to the handlers as they come.
     *
     * @param channel                 URI, such as {@code metaroce:ipc}.
     * @param streamId                of the stream.
     * @param availableImageHandler   told of new images, or null.
     * @param unavailableImageHandler told of images that went away, or null.
     * @return the registration id of the subscription to come.
     */
    public long asyncAddSubscription(
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        return conductor.asyncAdd(PendingRegistration.Kind.SUBSCRIPTION, checkChannel(channel), streamId,
            availableImageHandler, unavailableImageHandler);
    }

    /**
     * The publication of an {@link #asyncAddPublication}: null while the driver has not answered, then the
     * publication, the same one on every later call. Reads the driver's answers itself, so it makes progress with
     * the conductor's agent invoker too.
     *
     * @param registrationId returned by {@link #asyncAddPublication}.
     * @return the publication, or null while pending.
     * @throws io.metaroce.client.exceptions.RegistrationException once, if the driver refused it.
     * @throws io.metaroce.client.exceptions.DriverTimeoutException once, if the driver did not answer within the
     *                                                              driver timeout.
     * @throws io.metaroce.client.exceptions.MetaRoceException     if the client is closed, or the id names no
     *                                                              concurrent publication of this client.
     */
    public ConcurrentPublication getPublication(final long registrationId)
    {
        return conductor.pendingResource(registrationId, ConcurrentPublication.class);
    }

    /**
     * The publication of an {@link #asyncAddExclusivePublication}, as {@link #getPublication(long)}.
     *
     * @param registrationId returned by {@link #asyncAddExclusivePublication}.
     * @return the publication, or null while pending.
     * @throws io.metaroce.client.exceptions.RegistrationException once, if the driver refused it.
     * @throws io.metaroce.client.exceptions.MetaRoceException     if the client is closed, the driver did not
     *                                                              answer in time, or the id names no exclusive
     *                                                              publication of this client.
     */
    public ExclusivePublication getExclusivePublication(final long registrationId)
    {
        return conductor.pendingResource(registrationId, ExclusivePublication.class);
    }

    /**
     * The subscription of an {@link #asyncAddSubscription}, as {@link #getPublication(long)}.
     *
     * @param registrationId returned by {@link #asyncAddSubscription}.
     * @return the subscription, or null while pending.
     * @throws io.metaroce.client.exceptions.RegistrationException once, if the driver refused it.
     * @throws io.metaroce.client.exceptions.MetaRoceException     if the client is closed, the driver did not
     *                                                              answer in time, or the id names no subscription
     *                                                              of this client.
     */
    public Subscription getSubscription(final long registrationId)
    {
        return conductor.pendingResource(registrationId, Subscription.class);
    }

    /**
     * Is an asynchronous command ({@link Publication#asyncAddDestination}, {@link Publication#asyncRemoveDestination})
     * still waiting for the driver's answer? Reads the driver's answers itself.
     *
     * @param correlationId returned by the asynchronous call.
     * @return true while pending, false once the driver accepted it.
     * @throws io.metaroce.client.exceptions.RegistrationException once, if the driver refused it.
     * @throws io.metaroce.client.exceptions.DriverTimeoutException once, if the driver did not answer within the
     *                                                              driver timeout.
     */
    public boolean isCommandActive(final long correlationId)
    {
        return conductor.isCommandActive(correlationId);
    }

    /**
     * Add a custom counter with a label and no key.
     *
     * @param typeId of the counter (applications use {@code >= CounterTypeId.MIN_CUSTOM_TYPE_ID}, outside the
     *               driver's block {@link io.metaroce.client.status.CounterTypeId#isReserved}).
     * @param label  of the counter.
     * @return the counter.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public Counter addCounter(final int typeId, final String label)
    {
        final byte[] labelBytes = label.getBytes(StandardCharsets.UTF_8);
        final UnsafeBuffer labelBuffer = new UnsafeBuffer(labelBytes);
        return addCounter(typeId, labelBuffer, 0, 0, labelBuffer, 0, labelBytes.length);
    }

    /**
     * Add a custom counter with a key and a label.
     *
     * @param typeId      of the counter.
     * @param keyBuffer   holding the key.
     * @param keyOffset   of the key.
     * @param keyLength   of the key.
     * @param labelBuffer holding the UTF-8 label.
     * @param labelOffset of the label.
     * @param labelLength of the label.
     * @return the counter.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses it.
     */
    public Counter addCounter(
        final int typeId,
        final DirectBuffer keyBuffer,
        final int keyOffset,
        final int keyLength,
        final DirectBuffer labelBuffer,
        final int labelOffset,
        final int labelLength)
    {
        checkVarLength("key", keyLength);
        checkVarLength("label", labelLength);
        return conductor.addCounter(typeId, keyBuffer, keyOffset, keyLength, labelBuffer, labelOffset, labelLength);
    }

    /**
     * Ask the driver to terminate. It accepts only if a termination token is configured and matches.
     *
     * @param tokenBuffer holding the token.
     * @param tokenOffset of the token.
     * @param tokenLength of the token.
     * @throws io.metaroce.client.exceptions.RegistrationException if the driver refuses.
     */
    public void requestDriverTermination(final DirectBuffer tokenBuffer, final int tokenOffset, final int tokenLength)
    {
        checkVarLength("token", tokenLength);
        conductor.requestDriverTermination(tokenBuffer, tokenOffset, tokenLength);
    }

    /**
     * Reader over the driver's counters, including this client's.
     *
     * @return the counters reader.
     */
    public CountersReader countersReader()
    {
        return conductor.countersReader();
    }

    /**
     * Id of this client, carried in its commands.
     *
     * @return the client id.
     */
    public long clientId()
    {
        return conductor.clientId();
    }

    /**
     * The invoker to drive the conductor with, in invoker mode.
     *
     * @return the invoker, or null when the conductor has a thread of its own.
     */
    public AgentInvoker conductorAgentInvoker()
    {
        return conductorInvoker;
    }

    /**
     * Settings of the client.
     *
     * @return the concluded context.
     */
    public Context context()
    {
        return ctx;
    }

    /**
     * Version of the driver's CnC file.
     *
     * @return the semantic version as text.
     */
    public String cncVersion()
    {
        return cncFile.versionString();
    }

    /**
     * Has the client been closed, or terminated by a driver or client timeout?
     *
     * @return true when no more work can be done with it.
     */
    public boolean isClosed()
    {
        return isClosed || conductor.isTerminated();
    }

    /**
     * Close the client: stop the conductor, tell the driver, close every publication, subscription and counter and
     * unmap every log. Do not use any of them afterwards.
     */
    public synchronized void close()
    {
        if (!isClosed)
        {
            isClosed = true;
            if (null != conductorRunner)
            {
                conductorRunner.close();
            }
            else
            {
                conductorInvoker.close();
            }
            cncFile.close();
        }
    }

    private static String checkChannel(final String channel)
    {
        if (null == channel)
        {
            throw new IllegalArgumentException("channel must not be null");
        }

        final int length = channel.getBytes(StandardCharsets.UTF_8).length;
        if (length > 4096)
        {
            throw new IllegalArgumentException("channel longer than 4096 bytes: " + length);
        }

        return channel;
    }

    private static void checkVarLength(final String name, final int length)
    {
        if (length < 0 || length > 4096)
        {
            throw new IllegalArgumentException(name + " length must be in [0, 4096]: " + length);
        }
    }
}
