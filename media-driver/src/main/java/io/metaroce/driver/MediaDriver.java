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
import io.metaroce.client.cnc.CncFileDescriptor;
import io.metaroce.client.config.AgronaAccess;
import io.metaroce.client.config.PropertyRegistry;
import io.metaroce.client.exceptions.ActiveDriverException;
import io.metaroce.client.exceptions.ConfigurationException;
import io.metaroce.client.exceptions.MetaRoceException;
import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.NativeDatagrams;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.io.PollGroup;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.driver.buffer.FileAccess;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.StorageAllocator;
import io.metaroce.driver.security.TrustedPeers;
import io.metaroce.driver.status.LossReport;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.SystemUtil;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.CountedErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ShutdownSignalBarrier;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.broadcast.BroadcastTransmitter;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.errors.LoggingErrorHandler;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.ConcurrentCountersManager;
import org.agrona.concurrent.status.CountersManager;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import static io.metaroce.datapath.settings.Configuration.MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME;
import static io.metaroce.datapath.settings.Configuration.MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME;

/**
 * The media driver: owns the driver directory, the CnC file, every log buffer and every counter, and runs the
 * conductor, sender and receiver agents in the configured {@link ThreadingMode}. Clients talk to it only through
 * the CnC file; IPC data never passes through it.
 * <p>
 * Run standalone with {@link #main(String[])} ({@code ./metaroce driver}), which stops on SIGINT, SIGTERM or an
 * authorised TERMINATE_DRIVER command; or embed it with {@link #launch(Context)} and close it when done.
 */
public final class MediaDriver implements AutoCloseable
{
    private static final String USAGE = String.join(System.lineSeparator(),
        "usage: ./metaroce driver [--print-config] [file.properties ...]",
        "  (or java " + AgronaAccess.requiredFlag() + " -cp ... " + MediaDriver.class.getName() + " ...)",
        "",
        "Runs a media driver until Ctrl-C, SIGTERM or an authorised TERMINATE_DRIVER command.",
        "  file.properties  a properties file, URL or class-path resource whose entries are loaded as system",
        "                   properties, in order (a later file wins); a missing or unreadable one fails the start",
        "  --print-config   print every effective setting, its value and its source, then exit without starting",
        "  --help, -h       print this text",
        "",
        "Every setting is a metaroce.* property (docs/driver.md, Settings); an unknown one fails the start",
        "(metaroce.unknown.properties=warn only warns). A driver that cannot start exits with status 1.");

    private final Context ctx;
    private final DriverDirectory driverDirectory;
    private final SystemCounters systemCounters;
    private final LoggingErrorHandler loggingErrorHandler;
    private final ArrayList<AgentRunner> runners = new ArrayList<>();
    private final AgentInvoker sharedAgentInvoker;
    private final DriverConductor conductor;
    private PollGroup senderPollGroup;
    private PollGroup receiverPollGroup;
    private TransportEngine senderEngine;
    private TransportEngine receiverEngine;
    private boolean isClosed;

    private MediaDriver(final Context ctx)
    {
        this.ctx = ctx;
        final File directory = new File(ctx.directoryName());
        final StorageAllocator storageAllocator = new StorageAllocator(ctx.usableSpaceFunction(), ctx.fileAccess());

        final int toDriverLength = ctx.toDriverBufferLength() + RingBufferDescriptor.TRAILER_LENGTH;
        final int toClientsLength = ctx.toClientsBufferLength() + BroadcastBufferDescriptor.TRAILER_LENGTH;
        final int countersValuesLength = ctx.countersBufferLength();
        final int countersMetaDataLength = countersValuesLength *
            (CountersManager.METADATA_LENGTH / CountersManager.COUNTER_LENGTH);
        final int errorLogLength = ctx.errorBufferLength();
        final long cncLength = CncFileDescriptor.computeCncFileLength(
            (long)toDriverLength + toClientsLength + countersMetaDataLength + countersValuesLength + errorLogLength,
            ctx.filePageSize());

        driverDirectory = DriverDirectory.create(
            directory, cncLength, ctx.driverTimeoutMs(), ctx.epochClock(), storageAllocator, ctx.fileAccess(),
            ctx.driverLog().lines(System.Logger.Level.INFO));
        final MappedByteBuffer cncMapping = driverDirectory.cncMapping();
        try
        {
            final UnsafeBuffer metaData = CncFileDescriptor.createMetaDataBuffer(cncMapping);
            CncFileDescriptor.fillMetaData(
                metaData,
                toDriverLength,
                toClientsLength,
                countersMetaDataLength,
                countersValuesLength,
                errorLogLength,
                ctx.clientLivenessTimeoutNs(),
                ctx.epochClock().time(),
                SystemUtil.getPid());

            final CountersManager countersManager = new ConcurrentCountersManager(
                CncFileDescriptor.createCountersMetaDataBuffer(cncMapping, metaData),
                CncFileDescriptor.createCountersValuesBuffer(cncMapping, metaData),
                StandardCharsets.UTF_8,
                ctx.epochClock(),
                TimeUnit.NANOSECONDS.toMillis(ctx.counterFreeToReuseTimeoutNs()));
            systemCounters = new SystemCounters(countersManager);

            final DistinctErrorLog errorLog = new DistinctErrorLog(
                CncFileDescriptor.createErrorLogBuffer(cncMapping, metaData), ctx.epochClock(), StandardCharsets.UTF_8);
            loggingErrorHandler = new LoggingErrorHandler(errorLog, ctx.driverLog().lines(System.Logger.Level.ERROR));
            ctx.driverErrorHandler(ApplicationErrorHandler.around(new CountedErrorHandler(
                loggingErrorHandler, systemCounters.get(SystemCounterDescriptor.ERRORS)), ctx.errorHandler()));

            final ManyToOneRingBuffer toDriverCommands = new ManyToOneRingBuffer(
                CncFileDescriptor.createToDriverBuffer(cncMapping, metaData));
            toDriverCommands.consumerHeartbeatTime(ctx.epochClock().time());

            final TransportCommandQueue senderCommands = new TransportCommandQueue();
            final TransportCommandQueue receiverCommands = new TransportCommandQueue();
            // Sender and receiver on one thread share one poll group, which the sender (run first) selects, and the
            // receiver again when the sender's pass did work: what it sent over loopback is read in the same cycle.
            final boolean separateNetworkThreads = ThreadingMode.DEDICATED == ctx.threadingMode();
            senderPollGroup = ctx.transportFactory().newPollGroup();
            receiverPollGroup = separateNetworkThreads ? ctx.transportFactory().newPollGroup() : senderPollGroup;
            senderEngine = newEngine(ctx, countersManager, "agent=sender");
            receiverEngine = newEngine(ctx, countersManager, "agent=receiver");
            final SenderAgent sender = new SenderAgent(senderCommands, new DutyCycleTracker(
                systemCounters.get(SystemCounterDescriptor.SENDER_MAX_CYCLE_TIME),
                systemCounters.get(SystemCounterDescriptor.SENDER_CYCLE_TIME_THRESHOLD_EXCEEDED),
                ctx.cycleThresholdNs()), ctx.nanoClock(), senderPollGroup, true, senderEngine);
            final ReceiverAgent receiver = new ReceiverAgent(receiverCommands, new DutyCycleTracker(
                systemCounters.get(SystemCounterDescriptor.RECEIVER_MAX_CYCLE_TIME),
                systemCounters.get(SystemCounterDescriptor.RECEIVER_CYCLE_TIME_THRESHOLD_EXCEEDED),
                ctx.cycleThresholdNs()), ctx.nanoClock(), receiverPollGroup,
                separateNetworkThreads ? () -> true : sender::sentThisCycle, receiverEngine);
            conductor = new DriverConductor(
                ctx,
                toDriverCommands,
                new ClientProxy(new BroadcastTransmitter(
                    CncFileDescriptor.createToClientsBuffer(cncMapping, metaData))),
                countersManager,
                systemCounters,
                new LogFactory(directory, ctx.filePageSize(), storageAllocator),
                senderCommands,
                receiverCommands,
                sender,
                receiver,
                new LossReport(new UnsafeBuffer(driverDirectory.lossReportMapping())));

            CncFileDescriptor.signalCncReady(metaData, CncFileDescriptor.CNC_VERSION);
            sharedAgentInvoker = startAgents(ctx, conductor, sender, receiver);
        }
        catch (final Throwable ex)
        {
            CloseHelper.closeAll(runners);
            CloseHelper.closeAll(senderEngine, receiverEngine, senderPollGroup, receiverPollGroup);
            driverDirectory.closeAfterFailedStart();
            throw ex;
        }
    }

    /**
     * Launch a driver with the settings of the system properties.
     *
     * @return the running driver.
     */
    public static MediaDriver launch()
    {
        return launch(new Context());
    }

    /**
     * Launch a driver.
     *
     * @param ctx settings; concluded here.
     * @return the running driver.
     * @throws ActiveDriverException  if a live driver uses the directory.
     * @throws StorageSpaceException  if the CnC file does not fit on the directory's file system.
     * @throws ConfigurationException naming an invalid setting.
     */
    public static MediaDriver launch(final Context ctx)
    {
        ctx.conclude();
        if (ctx.printConfiguration())
        {
            ctx.printEffectiveConfiguration(System.out);
        }
        return new MediaDriver(ctx);
    }

    /**
     * Launch a driver in a directory of its own, deleted when the driver closes: for tests and samples that must
     * not collide with another driver. The directory is the default one with a unique suffix unless the context
     * names one.
     *
     * @param ctx settings; concluded here.
     * @return the running driver.
     */
    public static MediaDriver launchEmbedded(final Context ctx)
    {
        if (MetaRoce.Configuration.defaultDirectoryName().equals(ctx.directoryName()))
        {
            ctx.directoryName(ctx.directoryName() + "-" + UUID.randomUUID());
        }
        ctx.dirDeleteOnShutdown(true);

        return launch(ctx);
    }

    /**
     * Run a standalone driver until SIGINT, SIGTERM or an authorised TERMINATE_DRIVER command. Each argument names a
     * properties file (or URL, or class-path resource) whose entries are loaded as system properties first;
     * {@code --print-config} prints the effective settings and exits without starting a driver, {@code --help}
     * prints the usage.
     *
     * @param args options and properties files.
     */
    public static void main(final String[] args)
    {
        DriverLog.printToConsole();
        final MediaDriver driver;
        final ShutdownSignalBarrier barrier;
        try
        {
            final ArrayList<String> files = new ArrayList<>();
            boolean printConfigOnly = false;
            for (final String arg : args)
            {
                if ("--help".equals(arg) || "-h".equals(arg))
                {
                    System.out.println(USAGE);
                    return;
                }
                else if ("--print-config".equals(arg))
                {
                    printConfigOnly = true;
                }
                else if (arg.startsWith("-"))
                {
                    throw new ConfigurationException("unknown option " + arg + " (--help lists the options)");
                }
                else
                {
                    files.add(arg);
                }
            }

            PropertyRegistry.loadPropertiesFiles(files.toArray(new String[0]));
            if (printConfigOnly)
            {
                new Context().conclude().printEffectiveConfiguration(System.out);
                return;
            }

            barrier = new ShutdownSignalBarrier();
            try
            {
                driver = launch(new Context().terminationHook(barrier::signalAll));
            }
            catch (final Throwable ex)
            {
                barrier.close();
                throw ex;
            }
        }
        catch (final Throwable ex)
        {
            // Every start failure ends the process with status 1, so that a supervisor sees it: a barrier left
            // waiting would keep the JVM alive and deaf to SIGTERM.
            System.err.println("metaroce: the media driver cannot start: " + (ex instanceof MetaRoceException ?
                ex.getMessage() : ex.toString()));
            if (!(ex instanceof MetaRoceException))
            {
                ex.printStackTrace(System.err);
            }
            System.exit(1);
            return;
        }

        final Context ctx = driver.context();
        System.out.println("metaroce media driver " + DriverVersion.describe() +
            " running in " + ctx.directoryName() + " (pid " + SystemUtil.getPid() + ", threading " +
            ctx.threadingMode() + ", transport " + ctx.transportFactory() + "); Ctrl-C to stop");
        barrier.await();
        driver.close();
        System.out.println("metaroce media driver stopped");
        barrier.close();
    }

    /**
     * Settings of the driver.
     *
     * @return the concluded context.
     */
    public Context context()
    {
        return ctx;
    }

    /**
     * Directory of the driver.
     *
     * @return the directory name.
     */
    public String directoryName()
    {
        return ctx.directoryName();
    }

    /**
     * The invoker that drives all agents in {@link ThreadingMode#INVOKER} mode.
     *
     * @return the invoker, or null in the other modes.
     */
    public AgentInvoker sharedAgentInvoker()
    {
        return sharedAgentInvoker;
    }

    /**
     * Stop the agents, free every publication, unmap the CnC file, and delete the directory if configured.
     */
    public synchronized void close()
    {
        if (isClosed)
        {
            return;
        }
        isClosed = true;

        if (null != sharedAgentInvoker)
        {
            sharedAgentInvoker.close();
        }
        CloseHelper.closeAll(runners);
        conductor.closeNetworkResources();
        CloseHelper.closeAll(senderEngine, receiverEngine, senderPollGroup, receiverPollGroup);
        systemCounters.close();
        loggingErrorHandler.close();
        driverDirectory.close(ctx.dirDeleteOnShutdown());
    }

    /**
     * The engine of one network agent: every endpoint of the agent is a socket group of it. Its connections run with
     * the driver's settings unless their channel names others, and take their policies from the context's suppliers.
     */
    private static TransportEngine newEngine(
        final Context ctx, final CountersManager countersManager, final String counterLabel)
    {
        final SecureRandom identityRandom = new SecureRandom();
        return new TransportEngine(new TransportEngine.Context()
            .settings(ctx.engineSettings())
            .clock(ctx.nanoClock())
            .random(new SplittableRandom(identityRandom.nextLong()))
            .identityRandom(identityRandom)
            .countersManager(countersManager)
            .congestionControlSupplier(ctx.congestionControlSupplier())
            .pathPolicySupplier(ctx.pathPolicySupplier())
            .authSettings(ctx.authSettings())
            .counterLabel(counterLabel));
    }

    DriverConductor conductor()
    {
        return conductor;
    }

    TransportCommandQueue senderCommands()
    {
        return conductor.senderCommands();
    }

    TransportCommandQueue receiverCommands()
    {
        return conductor.receiverCommands();
    }

    private AgentInvoker startAgents(
        final Context ctx, final DriverConductor conductor, final SenderAgent sender, final ReceiverAgent receiver)
    {
        final ErrorHandler errorHandler = ctx.driverErrorHandler();
        switch (ctx.threadingMode())
        {
            case DEDICATED:
                start(ctx.conductorIdleStrategy(), conductor, ctx.conductorCpu());
                start(ctx.senderIdleStrategy(), sender, ctx.senderCpu());
                start(ctx.receiverIdleStrategy(), receiver, ctx.receiverCpu());
                return null;

            case SHARED_NETWORK:
                start(ctx.conductorIdleStrategy(), conductor, ctx.conductorCpu());
                start(ctx.sharedNetworkIdleStrategy(), new CompositeAgent(sender, receiver), ctx.sharedNetworkCpu());
                return null;

            case SHARED:
                start(ctx.sharedIdleStrategy(), new CompositeAgent(conductor, sender, receiver), ctx.sharedCpu());
                return null;

            default:
                final AgentInvoker invoker = new AgentInvoker(
                    errorHandler, null, new CompositeAgent(conductor, sender, receiver));
                invoker.start();
                return invoker;
        }
    }

    private void start(final IdleStrategy idleStrategy, final Agent agent, final int cpuId)
    {
        final AgentRunner runner = new AgentRunner(idleStrategy, ctx.driverErrorHandler(), null, agent);
        runners.add(runner);
        AgentRunner.startOnThread(runner, CpuAffinity.threadFactory(
            agent.roleName(), cpuId, ctx.driverLog().lines(System.Logger.Level.WARNING)));
    }

    /**
     * Settings of a driver: read from the system properties named in {@link Configuration} when created, changed
     * through the fluent setters, validated by {@link #conclude()}.
     */
    public static final class Context
    {
        private static final long UNSET_RESERVE = Long.MIN_VALUE;

        /**
         * Longest driver directory name: log file names travel in events whose texts are limited to 4096 bytes, and
         * the broadcast of the smallest configuration carries at most 8 KiB per event.
         */
        public static final int MAX_DIRECTORY_NAME_LENGTH = 1024;

        private boolean isConcluded;
        private String directoryName = MetaRoce.Configuration.directoryName();
        private boolean dirDeleteOnShutdown = Configuration.booleanProperty(
            Configuration.DIR_DELETE_ON_SHUTDOWN_PROP_NAME, false);
        private String dirGroup = System.getProperty(Configuration.DIR_GROUP_PROP_NAME);
        private FileAccess fileAccess;
        private System.Logger logger;
        private DriverLog driverLog;
        private ThreadingMode threadingMode = threadingModeProperty();
        private long driverTimeoutNs = Configuration.durationProperty(
            MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME, MetaRoce.Configuration.DRIVER_TIMEOUT_DEFAULT_NS);
        private long clientLivenessTimeoutNs = Configuration.durationProperty(
            Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME, Configuration.CLIENT_LIVENESS_TIMEOUT_DEFAULT_NS);
        private long timerIntervalNs = Configuration.durationProperty(
            Configuration.TIMER_INTERVAL_PROP_NAME, Configuration.TIMER_INTERVAL_DEFAULT_NS);
        private long publicationUnblockTimeoutNs = Configuration.durationProperty(
            Configuration.PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME, Configuration.PUBLICATION_UNBLOCK_TIMEOUT_DEFAULT_NS);
        private long publicationLingerTimeoutNs = Configuration.durationProperty(
            Configuration.PUBLICATION_LINGER_TIMEOUT_PROP_NAME, Configuration.PUBLICATION_LINGER_TIMEOUT_DEFAULT_NS);
        private long counterFreeToReuseTimeoutNs = Configuration.durationProperty(
            Configuration.COUNTER_FREE_TO_REUSE_TIMEOUT_PROP_NAME,
            Configuration.COUNTER_FREE_TO_REUSE_TIMEOUT_DEFAULT_NS);
        private long cycleThresholdNs = Configuration.durationProperty(
            Configuration.CYCLE_THRESHOLD_PROP_NAME, Configuration.CYCLE_THRESHOLD_DEFAULT_NS);
        private int ipcTermLength = Configuration.sizeProperty(
            Configuration.IPC_TERM_LENGTH_PROP_NAME, Configuration.IPC_TERM_LENGTH_DEFAULT);
        private int ipcMtu = Configuration.sizeProperty(Configuration.IPC_MTU_PROP_NAME, Configuration.IPC_MTU_DEFAULT);
        private int ipcTermWindowLength = Configuration.sizeProperty(Configuration.IPC_TERM_WINDOW_PROP_NAME, 0);
        private boolean termSparseFile = Configuration.booleanProperty(Configuration.TERM_SPARSE_FILE_PROP_NAME, false);
        private long imageStorageReserve = Configuration.longSizeProperty(
            Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME, UNSET_RESERVE);
        private boolean printConfiguration = Configuration.booleanProperty(
            Configuration.PRINT_CONFIGURATION_PROP_NAME, false);
        private int filePageSize = Configuration.sizeProperty(
            Configuration.FILE_PAGE_SIZE_PROP_NAME, Configuration.FILE_PAGE_SIZE_DEFAULT);
        private int toDriverBufferLength = Configuration.sizeProperty(
            Configuration.TO_DRIVER_BUFFER_LENGTH_PROP_NAME, Configuration.CNC_BUFFER_LENGTH_DEFAULT);
        private int toClientsBufferLength = Configuration.sizeProperty(
            Configuration.TO_CLIENTS_BUFFER_LENGTH_PROP_NAME, Configuration.CNC_BUFFER_LENGTH_DEFAULT);
        private int countersBufferLength = Configuration.sizeProperty(
            Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME, Configuration.COUNTERS_BUFFER_LENGTH_DEFAULT);
        private int errorBufferLength = Configuration.sizeProperty(
            Configuration.ERROR_BUFFER_LENGTH_PROP_NAME, Configuration.CNC_BUFFER_LENGTH_DEFAULT);
        private int streamSessionLimit = Configuration.intProperty(
            Configuration.STREAM_SESSION_LIMIT_PROP_NAME, Integer.MAX_VALUE);
        private int publicationDestinationsMax = Configuration.intProperty(
            Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME, Configuration.PUBLICATION_DESTINATIONS_MAX_DEFAULT);
        private int conductorCpu = Configuration.intProperty(
            Configuration.CONDUCTOR_CPU_PROP_NAME, Configuration.NO_CPU);
        private int senderCpu = Configuration.intProperty(Configuration.SENDER_CPU_PROP_NAME, Configuration.NO_CPU);
        private int receiverCpu = Configuration.intProperty(Configuration.RECEIVER_CPU_PROP_NAME, Configuration.NO_CPU);
        private int sharedNetworkCpu = Configuration.intProperty(
            Configuration.SHARED_NETWORK_CPU_PROP_NAME, Configuration.NO_CPU);
        private int sharedCpu = Configuration.intProperty(Configuration.SHARED_CPU_PROP_NAME, Configuration.NO_CPU);
        private String terminationToken = System.getProperty(Configuration.TERMINATION_TOKEN_PROP_NAME);
        private IdleStrategy conductorIdleStrategy;
        private IdleStrategy senderIdleStrategy;
        private IdleStrategy receiverIdleStrategy;
        private IdleStrategy sharedNetworkIdleStrategy;
        private IdleStrategy sharedIdleStrategy;
        private TerminationValidator terminationValidator;
        private Runnable terminationHook;
        private EpochClock epochClock;
        private NanoClock nanoClock;
        private ErrorHandler errorHandler;
        private ErrorHandler driverErrorHandler;
        private ToLongFunction<File> usableSpaceFunction;
        private NetworkLossGenerator lossGenerator;
        private PacketTransportFactory transportFactory;
        private EngineSettings engineSettings;
        private SenderCongestionControlSupplier congestionControlSupplier;
        private SenderPathPolicySupplier pathPolicySupplier;
        private final Set<String> setInCode = new HashSet<>();
        private String authKeyFile = System.getProperty(Configuration.AUTH_KEY_FILE_PROP_NAME);
        private String trustedPeersFile = System.getProperty(Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME);
        private boolean authRequire = Configuration.booleanProperty(Configuration.AUTH_REQUIRE_PROP_NAME, false);
        private boolean authEncrypt = Configuration.booleanProperty(Configuration.AUTH_ENCRYPT_PROP_NAME, true);
        private String authKeyUpdatePackets = System.getProperty(Configuration.AUTH_KEY_UPDATE_PACKETS_PROP_NAME);
        private AuthSettings authSettings;
        private DriverAuthentication authentication;

        /**
         * Validate every setting and fill in the defaults. Called by {@link MediaDriver#launch(Context)}.
         *
         * @return this for a fluent API.
         * @throws ConfigurationException naming the first invalid setting.
         */
        public Context conclude()
        {
            if (isConcluded)
            {
                throw new ConfigurationException("driver context already concluded: use one Context per driver");
            }
            isConcluded = true;
            driverLog = new DriverLog(null == logger ? System.getLogger(DriverLog.DRIVER_LOGGER) : logger);
            AgronaAccess.check("the media driver");
            PropertyRegistry.checkSystemProperties("the media driver", driverLog.lines(System.Logger.Level.WARNING));

            concludeTimeouts();
            concludeFileAccess();
            concludeLogSettings();
            concludeBuffers();
            concludeAgents();

            if (streamSessionLimit < 1)
            {
                fail(Configuration.STREAM_SESSION_LIMIT_PROP_NAME, "must be at least 1", streamSessionLimit);
            }
            if (publicationDestinationsMax < 1 ||
                publicationDestinationsMax > Configuration.PUBLICATION_DESTINATIONS_MAX_LIMIT)
            {
                fail(Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME,
                    "must be between 1 and " + Configuration.PUBLICATION_DESTINATIONS_MAX_LIMIT,
                    publicationDestinationsMax);
            }

            recordSetInCode(null != terminationValidator, Configuration.TERMINATION_TOKEN_PROP_NAME);
            if (null == terminationValidator)
            {
                terminationValidator = Configuration.tokenTerminationValidator(terminationToken);
            }

            if (null == terminationHook)
            {
                terminationHook = () -> {};
            }

            if (null == epochClock)
            {
                epochClock = SystemEpochClock.INSTANCE;
            }

            if (null == nanoClock)
            {
                nanoClock = SystemNanoClock.INSTANCE;
            }

            recordSetInCode(null != transportFactory, Configuration.TRANSPORT_PROP_NAME,
                Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, Configuration.TRANSPORT_SEGMENTATION_PROP_NAME);
            if (null == transportFactory)
            {
                transportFactory = transportFactoryProperty(driverLog);
            }

            recordSetInCode(null != lossGenerator, Configuration.LOSS_DATA_RATE_PROP_NAME,
                Configuration.LOSS_CONTROL_RATE_PROP_NAME, Configuration.LOSS_DATA_EVERY_PROP_NAME,
                Configuration.LOSS_CONTROL_EVERY_PROP_NAME, Configuration.LOSS_SEED_PROP_NAME);
            if (null == lossGenerator)
            {
                try
                {
                    lossGenerator = NetworkLossGenerator.fromSystemProperties();
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new ConfigurationException(ex.getMessage());
                }
            }

            if (null == usableSpaceFunction)
            {
                usableSpaceFunction = StorageAllocator::usableSpace;
            }

            concludeEngineSettings();
            authentication = DriverAuthentication.load(
                authKeyFile, trustedPeersFile, authRequire, authKeyUpdatePackets);
            authSettings = null == authentication ? null : authentication.settings();
            if (null != authentication)
            {
                DriverAuthentication.warmUpOnce();
            }

            if (null == congestionControlSupplier)
            {
                congestionControlSupplier = SenderPolicies.congestionControlSupplier();
            }

            if (null == pathPolicySupplier)
            {
                pathPolicySupplier = SenderPolicies.pathPolicySupplier();
            }

            return this;
        }

        private void concludeEngineSettings()
        {
            // Built here so that every metaroce.datapath.* setting fails the start, not the first network stream.
            if (null == engineSettings)
            {
                try
                {
                    engineSettings = shareImageBytes(EngineSettings.fromSystemProperties(), directoryName);
                }
                catch (final IllegalArgumentException ex)
                {
                    throw new ConfigurationException(ex.getMessage() + " (a transport engine setting)");
                }
            }

            // A channel without its own mtu uses this one, so it must be one a channel may name.
            final int mtu = engineSettings.mtu();
            if (mtu < UdpChannel.MIN_MTU || mtu > Configuration.MAX_MTU || 0 != (mtu % FrameDescriptor.FRAME_ALIGNMENT))
            {
                throw new ConfigurationException(io.metaroce.datapath.settings.Configuration.MTU_PROP_NAME + "=" + mtu +
                    " must be a multiple of " + FrameDescriptor.FRAME_ALIGNMENT + " between " + UdpChannel.MIN_MTU +
                    " and " + Configuration.MAX_MTU + ": it is the mtu of every network channel that names none");
            }
        }

        /**
         * In engine settings the driver makes from the system properties, the image bytes a source host or a
         * connection may make the receiver hold default to the smaller of their default and a quarter of the file
         * system that holds the driver directory, so that a peer at its bound leaves the others room on a small
         * /dev/shm; a value set by its property is kept as it is, and so are settings given to the context.
         */
        private static EngineSettings shareImageBytes(final EngineSettings settings, final String directoryName)
        {
            final long share = filesystemSize(new File(directoryName)) / 4;
            final EngineSettings.PeerLimitSettings limits = settings.limits();
            final long minimum = 3L * io.metaroce.codec.WireProtocol.MIN_TERM_LENGTH;
            final EngineSettings.Builder builder = settings.toBuilder();
            boolean changed = false;
            if (null == System.getProperty(MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME) &&
                share < limits.maxImageBytesPerSource())
            {
                builder.maxImageBytesPerSource(Math.max(minimum, share));
                changed = true;
            }
            if (null == System.getProperty(MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME) &&
                share < limits.maxImageBytesPerConnection())
            {
                builder.maxImageBytesPerConnection(Math.max(minimum, share));
                changed = true;
            }

            return changed ? builder.build() : settings;
        }

        /**
         * Total size of the filesystem that holds a path (its nearest existing ancestor), 0 when none is known.
         */
        private static long filesystemSize(final File path)
        {
            File existing = path.getAbsoluteFile();
            while (null != existing && !existing.exists())
            {
                existing = existing.getParentFile();
            }

            return null == existing ? 0 : existing.getTotalSpace();
        }


        /**
         * The file of this driver's private key: authenticated connections on.
         *
         * @param path the key file ({@code ./metaroce keygen} writes one), or null for none.
         * @return this for a fluent API.
         */
        public Context authKeyFile(final String path)
        {
            this.authKeyFile = path;
            return this;
        }

        /**
         * The file of this driver's private key.
         *
         * @return the path, or null when connections are not authenticated.
         */
        public String authKeyFile()
        {
            return authKeyFile;
        }

        /**
         * The allow-list of trusted drivers.
         *
         * @param path the file, lines {@code <base64 public key> <name> [host ...]}, or null for none.
         * @return this for a fluent API.
         */
        public Context trustedPeersFile(final String path)
        {
            this.trustedPeersFile = path;
            return this;
        }

        /**
         * The allow-list of trusted drivers.
         *
         * @return the path, or null.
         */
        public String trustedPeersFile()
        {
            return trustedPeersFile;
        }

        /**
         * Whether every network connection must authenticate, inbound and outbound.
         *
         * @param authRequire true to require it.
         * @return this for a fluent API.
         */
        public Context authRequire(final boolean authRequire)
        {
            this.authRequire = authRequire;
            return this;
        }

        /**
         * Whether every network connection must authenticate.
         *
         * @return true when required.
         */
        public boolean authRequire()
        {
            return authRequire;
        }

        /**
         * Whether authenticated publications encrypt DATA bodies by default, or only authenticate them.
         *
         * @param authEncrypt true to encrypt.
         * @return this for a fluent API.
         */
        public Context authEncrypt(final boolean authEncrypt)
        {
            this.authEncrypt = authEncrypt;
            return this;
        }

        /**
         * Whether authenticated publications encrypt DATA bodies by default.
         *
         * @return true to encrypt.
         */
        public boolean authEncrypt()
        {
            return authEncrypt;
        }

        /**
         * Datagrams sealed under one key before it changes.
         *
         * @param packets 1024 to 2^23, or null for the default 2^20.
         * @return this for a fluent API.
         */
        public Context authKeyUpdatePackets(final String packets)
        {
            this.authKeyUpdatePackets = packets;
            return this;
        }

        /**
         * Datagrams sealed under one key before it changes, as given.
         *
         * @return the count as text, or null for the default.
         */
        public String authKeyUpdatePackets()
        {
            return authKeyUpdatePackets;
        }

        /**
         * The engines' authentication settings, made from the key file and the allow-list by {@link #conclude()}.
         *
         * @return the settings, or null when connections are not authenticated.
         */
        public AuthSettings authSettings()
        {
            return authSettings;
        }

        /**
         * The allow-list in force: loaded by {@link #conclude()}, and again whenever its file changes.
         *
         * @return the trusted peers, or null when connections are not authenticated.
         */
        public TrustedPeers trustedPeers()
        {
            return null == authentication ? null : authentication.trustedPeers();
        }

        /**
         * The driver's authentication, which the conductor keeps up to date with the allow-list's file.
         *
         * @return it, or null when connections are not authenticated.
         */
        DriverAuthentication authentication()
        {
            return authentication;
        }

        private void concludeTimeouts()
        {
            if (null == directoryName || directoryName.isEmpty())
            {
                fail(MetaRoce.Configuration.DIR_PROP_NAME, "must not be empty", directoryName);
            }

            if (directoryName.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_DIRECTORY_NAME_LENGTH)
            {
                fail(MetaRoce.Configuration.DIR_PROP_NAME, "must be at most " + MAX_DIRECTORY_NAME_LENGTH +
                    " bytes long, so that log file names fit in events", directoryName);
            }

            if (timerIntervalNs < TimeUnit.MILLISECONDS.toNanos(1))
            {
                failDuration(Configuration.TIMER_INTERVAL_PROP_NAME, "must be at least 1ms", timerIntervalNs);
            }

            if (driverTimeoutNs < 2 * timerIntervalNs)
            {
                failDuration(MetaRoce.Configuration.DRIVER_TIMEOUT_PROP_NAME, "must be at least twice " +
                    Configuration.TIMER_INTERVAL_PROP_NAME + " (" +
                    asGiven(Configuration.TIMER_INTERVAL_PROP_NAME, timerIntervalNs, true) + ")", driverTimeoutNs);
            }

            if (clientLivenessTimeoutNs < 2 * timerIntervalNs)
            {
                failDuration(Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME, "must be at least twice " +
                    Configuration.TIMER_INTERVAL_PROP_NAME + " (" +
                    asGiven(Configuration.TIMER_INTERVAL_PROP_NAME, timerIntervalNs, true) + ")",
                    clientLivenessTimeoutNs);
            }

            if (publicationUnblockTimeoutNs <= clientLivenessTimeoutNs)
            {
                failDuration(Configuration.PUBLICATION_UNBLOCK_TIMEOUT_PROP_NAME, "must be longer than " +
                    Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME + " (" +
                    asGiven(Configuration.CLIENT_LIVENESS_TIMEOUT_PROP_NAME, clientLivenessTimeoutNs, true) + ")",
                    publicationUnblockTimeoutNs);
            }

            if (publicationLingerTimeoutNs < 0)
            {
                failDuration(Configuration.PUBLICATION_LINGER_TIMEOUT_PROP_NAME, "must not be negative",
                    publicationLingerTimeoutNs);
            }

            if (counterFreeToReuseTimeoutNs < 0)
            {
                failDuration(Configuration.COUNTER_FREE_TO_REUSE_TIMEOUT_PROP_NAME, "must not be negative",
                    counterFreeToReuseTimeoutNs);
            }

            if (cycleThresholdNs <= 0)
            {
                failDuration(Configuration.CYCLE_THRESHOLD_PROP_NAME, "must be positive", cycleThresholdNs);
            }
        }

        private void concludeFileAccess()
        {
            if (null == dirGroup)
            {
                fileAccess = FileAccess.ownerOnly();
                return;
            }
            if (dirGroup.isBlank())
            {
                fail(Configuration.DIR_GROUP_PROP_NAME, "must name a group (or be unset for an owner-only directory)",
                    "'" + dirGroup + "'");
            }

            try
            {
                fileAccess = FileAccess.group(dirGroup, FileSystems.getDefault().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(dirGroup));
            }
            catch (final UserPrincipalNotFoundException ex)
            {
                fail(Configuration.DIR_GROUP_PROP_NAME, "names no group of this system (see getent group)",
                    dirGroup);
            }
            catch (final IOException | UnsupportedOperationException ex)
            {
                fail(Configuration.DIR_GROUP_PROP_NAME, "needs a file system with POSIX groups (" + ex + ")",
                    dirGroup);
            }
        }

        private void concludeLogSettings()
        {
            // Checked here rather than by LogBufferDescriptor, whose message would show the value a second time.
            checkPowerOfTwo(Configuration.IPC_TERM_LENGTH_PROP_NAME, ipcTermLength,
                LogBufferDescriptor.TERM_MIN_LENGTH, LogBufferDescriptor.TERM_MAX_LENGTH);
            checkPowerOfTwo(Configuration.FILE_PAGE_SIZE_PROP_NAME, filePageSize,
                LogBufferDescriptor.PAGE_MIN_SIZE, LogBufferDescriptor.PAGE_MAX_SIZE);

            if (ipcMtu < 64 || ipcMtu > Configuration.MAX_MTU || 0 != (ipcMtu % 32) || ipcMtu > ipcTermLength / 8)
            {
                failSize(Configuration.IPC_MTU_PROP_NAME, "must be a multiple of 32 between 64 and " +
                    Math.min(Configuration.MAX_MTU, ipcTermLength / 8) + " (an eighth of the term length)", ipcMtu);
            }

            if (ipcTermWindowLength < 0 || ipcTermWindowLength > ipcTermLength / 2)
            {
                failSize(Configuration.IPC_TERM_WINDOW_PROP_NAME, "must be 0 (half the term) or at most half of " +
                    Configuration.IPC_TERM_LENGTH_PROP_NAME + " (" +
                    asGiven(Configuration.IPC_TERM_LENGTH_PROP_NAME, ipcTermLength, false) + ")",
                    ipcTermWindowLength);
            }

            if (UNSET_RESERVE == imageStorageReserve)
            {
                // Unset: the default, but at most an eighth of the file system, so that a small /dev/shm (a
                // container's 64 MiB) still takes images.
                imageStorageReserve = Math.min(Configuration.IMAGE_STORAGE_RESERVE_DEFAULT,
                    filesystemSize(new File(directoryName)) / 8);
            }
            if (imageStorageReserve < 0)
            {
                failSize(Configuration.IMAGE_STORAGE_RESERVE_PROP_NAME, "must not be negative", imageStorageReserve);
            }
        }

        private void concludeBuffers()
        {
            final int maxLength = Integer.highestOneBit(Integer.MAX_VALUE);
            checkPowerOfTwo(Configuration.TO_DRIVER_BUFFER_LENGTH_PROP_NAME, toDriverBufferLength, 64 * 1024,
                maxLength);
            checkPowerOfTwo(Configuration.TO_CLIENTS_BUFFER_LENGTH_PROP_NAME, toClientsBufferLength, 64 * 1024,
                maxLength);
            checkPowerOfTwo(Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME, countersBufferLength, 64 * 1024,
                256 * 1024 * 1024);
            checkPowerOfTwo(Configuration.ERROR_BUFFER_LENGTH_PROP_NAME, errorBufferLength, 64 * 1024, maxLength);
        }

        private void concludeAgents()
        {
            if (null == threadingMode)
            {
                fail(Configuration.THREADING_MODE_PROP_NAME, "must be set", null);
            }

            checkCpu(Configuration.CONDUCTOR_CPU_PROP_NAME, conductorCpu);
            checkCpu(Configuration.SENDER_CPU_PROP_NAME, senderCpu);
            checkCpu(Configuration.RECEIVER_CPU_PROP_NAME, receiverCpu);
            checkCpu(Configuration.SHARED_NETWORK_CPU_PROP_NAME, sharedNetworkCpu);
            checkCpu(Configuration.SHARED_CPU_PROP_NAME, sharedCpu);

            recordSetInCode(null != conductorIdleStrategy, Configuration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME);
            if (null == conductorIdleStrategy)
            {
                conductorIdleStrategy = Configuration.idleStrategy(Configuration.CONDUCTOR_IDLE_STRATEGY_PROP_NAME);
            }

            recordSetInCode(null != senderIdleStrategy, Configuration.SENDER_IDLE_STRATEGY_PROP_NAME);
            if (null == senderIdleStrategy)
            {
                senderIdleStrategy = Configuration.idleStrategy(Configuration.SENDER_IDLE_STRATEGY_PROP_NAME);
            }

            recordSetInCode(null != receiverIdleStrategy, Configuration.RECEIVER_IDLE_STRATEGY_PROP_NAME);
            if (null == receiverIdleStrategy)
            {
                receiverIdleStrategy = Configuration.idleStrategy(Configuration.RECEIVER_IDLE_STRATEGY_PROP_NAME);
            }

            recordSetInCode(null != sharedNetworkIdleStrategy, Configuration.SHARED_NETWORK_IDLE_STRATEGY_PROP_NAME);
            if (null == sharedNetworkIdleStrategy)
            {
                sharedNetworkIdleStrategy = Configuration.idleStrategy(
                    Configuration.SHARED_NETWORK_IDLE_STRATEGY_PROP_NAME);
            }

            recordSetInCode(null != sharedIdleStrategy, Configuration.SHARED_IDLE_STRATEGY_PROP_NAME);
            if (null == sharedIdleStrategy)
            {
                sharedIdleStrategy = Configuration.idleStrategy(Configuration.SHARED_IDLE_STRATEGY_PROP_NAME);
            }
        }

        private void recordSetInCode(final boolean isSet, final String... propertyNames)
        {
            if (isSet)
            {
                setInCode.addAll(Arrays.asList(propertyNames));
            }
        }

        private static void checkPowerOfTwo(final String name, final int length, final int min, final int max)
        {
            if (length < min || length > max || !BitUtil.isPowerOfTwo(length))
            {
                failSize(name, "must be a power of two from " + sizeText(min) + " to " + sizeText(max), length);
            }
        }

        private static void checkCpu(final String name, final int cpu)
        {
            if (cpu < Configuration.NO_CPU)
            {
                fail(name, "must be a CPU number or -1 for none", cpu);
            }
        }

        private static void fail(final String name, final String problem, final Object value)
        {
            throw new ConfigurationException(name + " " + problem + ": " + value);
        }

        private static void failSize(final String name, final String problem, final long bytes)
        {
            fail(name, problem, asGiven(name, bytes, false));
        }

        private static void failDuration(final String name, final String problem, final long ns)
        {
            fail(name, problem, asGiven(name, ns, true));
        }

        /**
         * A size or duration as its property gave it ({@code 100k}, {@code 500us}) when the setting is the
         * property's, so that a message shows what was written; otherwise as code set it.
         */
        private static String asGiven(final String name, final long value, final boolean isDuration)
        {
            final String text = System.getProperty(name);
            if (null != text)
            {
                try
                {
                    final String trimmed = text.trim();
                    if (value == (isDuration ?
                        SystemUtil.parseDuration(name, trimmed) : SystemUtil.parseSize(name, trimmed)))
                    {
                        return trimmed;
                    }
                }
                catch (final RuntimeException ignore)
                {
                    // the property does not hold this value: code set it
                }
            }

            return isDuration ? ConfigurationPrinter.formatNs(value) : String.valueOf(value);
        }

        private static String sizeText(final long bytes)
        {
            if (0 == bytes % (1024 * 1024 * 1024))
            {
                return bytes / (1024 * 1024 * 1024) + "g";
            }
            if (0 == bytes % (1024 * 1024))
            {
                return bytes / (1024 * 1024) + "m";
            }

            return 0 == bytes % 1024 ? bytes / 1024 + "k" : String.valueOf(bytes);
        }

        static PacketTransportFactory transportFactoryProperty(final DriverLog driverLog)
        {
            final String kind = System.getProperty(Configuration.TRANSPORT_PROP_NAME, Configuration.TRANSPORT_DEFAULT)
                .trim();
            final int batchLength = Configuration.intProperty(
                Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, Configuration.TRANSPORT_BATCH_LENGTH_DEFAULT);
            final String segmentation = System.getProperty(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME,
                String.valueOf(Configuration.TRANSPORT_SEGMENTATION_DEFAULT)).trim();
            if (batchLength < 2 || batchLength > 1024)
            {
                fail(Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, "must be 2 to 1024", batchLength);
            }
            if (!"true".equals(segmentation) && !"false".equals(segmentation))
            {
                fail(Configuration.TRANSPORT_SEGMENTATION_PROP_NAME, "must be true or false", segmentation);
            }
            if ("nio".equals(kind))
            {
                return PacketTransportFactory.udp();
            }
            if (!"batched".equals(kind))
            {
                fail(Configuration.TRANSPORT_PROP_NAME, "must be nio or batched", kind);
            }
            if (!NativeDatagrams.isAvailable())
            {
                driverLog.log(System.Logger.Level.WARNING, "metaroce: the batched transport (" +
                    Configuration.TRANSPORT_PROP_NAME + "=batched) cannot run here (" +
                    NativeDatagrams.unavailableReason() + "); running nio");
                return PacketTransportFactory.udp();
            }

            return PacketTransportFactory.batchedUdp(batchLength, "true".equals(segmentation));
        }

        private static ThreadingMode threadingModeProperty()
        {
            final String value = System.getProperty(Configuration.THREADING_MODE_PROP_NAME, "DEDICATED");
            try
            {
                return ThreadingMode.valueOf(value.trim().toUpperCase());
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigurationException(Configuration.THREADING_MODE_PROP_NAME +
                    " must be DEDICATED, SHARED_NETWORK, SHARED or INVOKER: " + value);
            }
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
         * Delete the directory when the driver closes.
         *
         * @param dirDeleteOnShutdown true to delete.
         * @return this for a fluent API.
         */
        public Context dirDeleteOnShutdown(final boolean dirDeleteOnShutdown)
        {
            this.dirDeleteOnShutdown = dirDeleteOnShutdown;
            return this;
        }

        /**
         * Is the directory deleted when the driver closes?
         *
         * @return true to delete.
         */
        public boolean dirDeleteOnShutdown()
        {
            return dirDeleteOnShutdown;
        }

        /**
         * Name a group whose members may use the driver directory: its files are made readable and writable by
         * the group (0660, directories 0770) and given to it, others still get no access. The driver's user must
         * be a member of the group (or root).
         *
         * @param dirGroup name (or numeric id) of the group, null for an owner-only directory.
         * @return this for a fluent API.
         */
        public Context dirGroup(final String dirGroup)
        {
            this.dirGroup = dirGroup;
            return this;
        }

        /**
         * The group whose members may use the driver directory.
         *
         * @return the group name, or null for an owner-only directory.
         */
        public String dirGroup()
        {
            return dirGroup;
        }

        /**
         * Who may use the driver's files, from {@link #dirGroup()}; set by {@link #conclude()}.
         *
         * @return the access.
         */
        FileAccess fileAccess()
        {
            return fileAccess;
        }

        /**
         * Route the driver's messages (a reclaimed directory, a transport that falls back, a thread that cannot be
         * pinned, an unknown property) to a logger; by default {@code System.getLogger("io.metaroce.driver")}, which
         * an application configures with its own logging. The standalone driver prints them as lines on standard
         * output and error.
         *
         * @param logger for the driver's messages, null for the default.
         * @return this for a fluent API.
         */
        public Context logger(final System.Logger logger)
        {
            this.logger = logger;
            return this;
        }

        /**
         * The logger set for the driver's messages.
         *
         * @return the logger, or null for {@code System.getLogger("io.metaroce.driver")}.
         */
        public System.Logger logger()
        {
            return logger;
        }

        /**
         * The driver's messages; set by {@link #conclude()}.
         *
         * @return the log.
         */
        DriverLog driverLog()
        {
            return driverLog;
        }

        /**
         * Set the threading mode.
         *
         * @param threadingMode of the agents.
         * @return this for a fluent API.
         */
        public Context threadingMode(final ThreadingMode threadingMode)
        {
            this.threadingMode = threadingMode;
            return this;
        }

        /**
         * Threading mode.
         *
         * @return the threading mode.
         */
        public ThreadingMode threadingMode()
        {
            return threadingMode;
        }

        /**
         * Set the driver timeout: a directory whose driver heartbeated more recently is live.
         *
         * @param timeoutNs the timeout.
         * @return this for a fluent API.
         */
        public Context driverTimeoutNs(final long timeoutNs)
        {
            this.driverTimeoutNs = timeoutNs;
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
         * Set the client liveness timeout.
         *
         * @param timeoutNs after which a silent client is timed out.
         * @return this for a fluent API.
         */
        public Context clientLivenessTimeoutNs(final long timeoutNs)
        {
            this.clientLivenessTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Client liveness timeout.
         *
         * @return nanoseconds.
         */
        public long clientLivenessTimeoutNs()
        {
            return clientLivenessTimeoutNs;
        }

        /**
         * Set the interval of the conductor's timers.
         *
         * @param intervalNs of the timers.
         * @return this for a fluent API.
         */
        public Context timerIntervalNs(final long intervalNs)
        {
            this.timerIntervalNs = intervalNs;
            return this;
        }

        /**
         * Interval of the conductor's timers.
         *
         * @return nanoseconds.
         */
        public long timerIntervalNs()
        {
            return timerIntervalNs;
        }

        /**
         * Set the publication unblock timeout.
         *
         * @param timeoutNs after which an uncommitted frame that blocks consumers is padded out.
         * @return this for a fluent API.
         */
        public Context publicationUnblockTimeoutNs(final long timeoutNs)
        {
            this.publicationUnblockTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Publication unblock timeout.
         *
         * @return nanoseconds.
         */
        public long publicationUnblockTimeoutNs()
        {
            return publicationUnblockTimeoutNs;
        }

        /**
         * Set the injected packet loss of the network transport (tests, demos, fault drills); by default the
         * {@code metaroce.loss.*} properties of {@link Configuration} describe it, and with none set there is none.
         *
         * @param lossGenerator the loss; its setters may be called while the driver runs.
         * @return this for a fluent API.
         */
        public Context lossGenerator(final NetworkLossGenerator lossGenerator)
        {
            this.lossGenerator = lossGenerator;
            return this;
        }

        /**
         * Injected packet loss of the network transport.
         *
         * @return the loss generator, or null for none.
         */
        public NetworkLossGenerator lossGenerator()
        {
            return lossGenerator;
        }

        /**
         * Set the factory that opens the packet transports of network endpoints (one per send and per receive
         * endpoint): another packet I/O or a decorator of the default plugs in here. By default the one
         * {@link Configuration#TRANSPORT_PROP_NAME} names: UDP with batched system calls
         * ({@link PacketTransportFactory#batchedUdp(int, boolean)}) where they run, else
         * {@link PacketTransportFactory#udp()}. It is called on the conductor thread.
         *
         * @param transportFactory the factory; null for the default.
         * @return this for a fluent API.
         */
        public Context transportFactory(final PacketTransportFactory transportFactory)
        {
            this.transportFactory = transportFactory;
            return this;
        }

        /**
         * The factory that opens the packet transports of network endpoints.
         *
         * @return the factory (the default after {@link #conclude()} when none was set).
         */
        public PacketTransportFactory transportFactory()
        {
            return transportFactory;
        }

        /**
         * Protocol settings of the driver's transport engines, and the defaults of every network channel: a channel's
         * parameters ({@code mtu}, {@code entropy}, {@code credit}, {@code cc}, {@code path-eviction},
         * {@code path-counters}, {@code link-rate}) make a modified copy for its connections, so they win. Without it
         * the driver takes {@link EngineSettings#fromSystemProperties()} at {@link #conclude()}, so an invalid
         * {@code metaroce.datapath.*} value fails the start, naming the property.
         *
         * @param engineSettings the settings; null for those of the system properties.
         * @return this for a fluent API.
         */
        public Context engineSettings(final EngineSettings engineSettings)
        {
            this.engineSettings = engineSettings;
            return this;
        }

        /**
         * Set the supplier of the congestion controller of every sender connection, which the driver hands to its
         * transport engines: a channel's {@code cc} names a controller it {@link SenderCongestionControlSupplier#knows
         * knows} (a channel naming one it does not know is refused with {@code INVALID_CHANNEL} naming {@code cc}), and
         * the supplier receives each connection's {@link io.metaroce.datapath.settings.ConnectionSettings} with that
         * name ({@code delay} for {@code cc=true}, {@code cc=false} or none) to make its controller at establishment. A
         * supplier of new controllers adds its names and delegates the built-in ones to {@link
         * SenderPolicies#congestionControlSupplier()}. It is asked on the conductor thread and called on the sender
         * agent's, so it must be thread-safe.
         *
         * @param supplier the supplier; null (the default) for {@link SenderPolicies#congestionControlSupplier()},
         *                 which knows {@code delay} and {@code aimd}.
         * @return this for a fluent API.
         */
        public Context congestionControlSupplier(final SenderCongestionControlSupplier supplier)
        {
            this.congestionControlSupplier = supplier;
            return this;
        }

        /**
         * The supplier of the congestion controller of every sender connection.
         *
         * @return the supplier (the default after {@link #conclude()} when none was set).
         */
        public SenderCongestionControlSupplier congestionControlSupplier()
        {
            return congestionControlSupplier;
        }

        /**
         * Set the supplier of the path policy of every sender connection, which the driver hands to its transport
         * engines: a publication channel's {@code path-policy} names a policy it
         * {@link SenderPathPolicySupplier#knows knows} (a channel naming one it does not know is refused with
         * {@code INVALID_CHANNEL} naming {@code path-policy}), and the supplier receives each connection's
         * {@link io.metaroce.datapath.settings.ConnectionSettings} with that name ({@code weighted} when the channel
         * names none) to make its policy when the connection is created. A supplier of new policies adds its names and
         * delegates the built-in ones to {@link SenderPolicies#pathPolicySupplier()}. It is asked on the conductor
         * thread and called on the sender agent's, so it must be thread-safe.
         *
         * @param supplier the supplier; null (the default) for {@link SenderPolicies#pathPolicySupplier()}, which
         *                 knows {@code weighted} and {@code round-robin}.
         * @return this for a fluent API.
         */
        public Context pathPolicySupplier(final SenderPathPolicySupplier supplier)
        {
            this.pathPolicySupplier = supplier;
            return this;
        }

        /**
         * The supplier of the path policy of every sender connection.
         *
         * @return the supplier (the default after {@link #conclude()} when none was set).
         */
        public SenderPathPolicySupplier pathPolicySupplier()
        {
            return pathPolicySupplier;
        }

        /**
         * Print every effective setting when the driver starts (the default comes from
         * {@value Configuration#PRINT_CONFIGURATION_PROP_NAME}).
         *
         * @param printConfiguration true to print.
         * @return this for a fluent API.
         */
        public Context printConfiguration(final boolean printConfiguration)
        {
            this.printConfiguration = printConfiguration;
            return this;
        }

        /**
         * Whether the driver prints its effective settings when it starts.
         *
         * @return true to print.
         */
        public boolean printConfiguration()
        {
            return printConfiguration;
        }

        /**
         * Print every setting of the driver and of its transport engine, one a line: the name, the effective value
         * and where it came from ({@code default}, {@code file <path>}, {@code system property}, or {@code code} when
         * a setter or the {@link #engineSettings(EngineSettings)} changed it). A termination token is shown as
         * set, never printed.
         *
         * @param out where to print.
         * @throws ConfigurationException if the context is not concluded.
         */
        public void printEffectiveConfiguration(final PrintStream out)
        {
            if (!isConcluded)
            {
                throw new ConfigurationException("conclude the context before printing its configuration");
            }
            ConfigurationPrinter.print(this, out);
        }

        boolean isSetInCode(final String propertyName)
        {
            return setInCode.contains(propertyName);
        }

        /**
         * Protocol settings of the driver's transport engines and defaults of its network channels.
         *
         * @return the settings; after {@link #conclude()} never null.
         */
        public EngineSettings engineSettings()
        {
            return engineSettings;
        }

        /**
         * Set the default publication linger timeout.
         *
         * @param timeoutNs how long a released publication drains and then keeps its log.
         * @return this for a fluent API.
         */
        public Context publicationLingerTimeoutNs(final long timeoutNs)
        {
            this.publicationLingerTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * Default publication linger timeout.
         *
         * @return nanoseconds.
         */
        public long publicationLingerTimeoutNs()
        {
            return publicationLingerTimeoutNs;
        }

        /**
         * Set how long a freed counter stays unused before reuse.
         *
         * @param timeoutNs the timeout.
         * @return this for a fluent API.
         */
        public Context counterFreeToReuseTimeoutNs(final long timeoutNs)
        {
            this.counterFreeToReuseTimeoutNs = timeoutNs;
            return this;
        }

        /**
         * How long a freed counter stays unused before reuse.
         *
         * @return nanoseconds.
         */
        public long counterFreeToReuseTimeoutNs()
        {
            return counterFreeToReuseTimeoutNs;
        }

        /**
         * Set the duty cycle threshold of the cycle-time counters.
         *
         * @param thresholdNs above which a cycle is counted.
         * @return this for a fluent API.
         */
        public Context cycleThresholdNs(final long thresholdNs)
        {
            this.cycleThresholdNs = thresholdNs;
            return this;
        }

        /**
         * Duty cycle threshold.
         *
         * @return nanoseconds.
         */
        public long cycleThresholdNs()
        {
            return cycleThresholdNs;
        }

        /**
         * Set the default term length of IPC publications.
         *
         * @param termLength a power of two from 64 KiB to 1 GiB.
         * @return this for a fluent API.
         */
        public Context ipcTermLength(final int termLength)
        {
            this.ipcTermLength = termLength;
            return this;
        }

        /**
         * Default term length of IPC publications.
         *
         * @return bytes.
         */
        public int ipcTermLength()
        {
            return ipcTermLength;
        }

        /**
         * Set the default MTU of IPC publications.
         *
         * @param mtu longest frame, a multiple of 32.
         * @return this for a fluent API.
         */
        public Context ipcMtu(final int mtu)
        {
            this.ipcMtu = mtu;
            return this;
        }

        /**
         * Default MTU of IPC publications.
         *
         * @return bytes.
         */
        public int ipcMtu()
        {
            return ipcMtu;
        }

        /**
         * Set the default term window of IPC publications.
         *
         * @param termWindowLength at most half the term length, or 0 for half the term length.
         * @return this for a fluent API.
         */
        public Context ipcTermWindowLength(final int termWindowLength)
        {
            this.ipcTermWindowLength = termWindowLength;
            return this;
        }

        /**
         * Default term window of IPC publications.
         *
         * @return bytes, 0 for half the term length.
         */
        public int ipcTermWindowLength()
        {
            return ipcTermWindowLength;
        }

        /**
         * Create log files sparse.
         *
         * @param termSparseFile true for sparse files.
         * @return this for a fluent API.
         */
        public Context termSparseFile(final boolean termSparseFile)
        {
            this.termSparseFile = termSparseFile;
            return this;
        }

        /**
         * Are log files created sparse?
         *
         * @return true for sparse files.
         */
        public boolean termSparseFile()
        {
            return termSparseFile;
        }

        /**
         * Set the usable space of the driver directory's file system that image logs must leave free for local
         * clients.
         *
         * @param bytes of the reserve, 0 for none.
         * @return this for a fluent API.
         * @see Configuration#IMAGE_STORAGE_RESERVE_PROP_NAME
         */
        public Context imageStorageReserve(final long bytes)
        {
            this.imageStorageReserve = bytes;
            return this;
        }

        /**
         * Usable space of the driver directory's file system that image logs must leave free for local clients.
         * Unset, the default until {@link #conclude()}, which lowers it to an eighth of the file system if that is
         * less.
         *
         * @return bytes of the reserve.
         * @see Configuration#IMAGE_STORAGE_RESERVE_PROP_NAME
         */
        public long imageStorageReserve()
        {
            return UNSET_RESERVE == imageStorageReserve ? Configuration.IMAGE_STORAGE_RESERVE_DEFAULT :
                imageStorageReserve;
        }

        /**
         * Set the file page size.
         *
         * @param filePageSize of the file system.
         * @return this for a fluent API.
         */
        public Context filePageSize(final int filePageSize)
        {
            this.filePageSize = filePageSize;
            return this;
        }

        /**
         * File page size.
         *
         * @return bytes.
         */
        public int filePageSize()
        {
            return filePageSize;
        }

        /**
         * Set the capacity of the to-driver ring.
         *
         * @param length a power of two; the trailer is added.
         * @return this for a fluent API.
         */
        public Context toDriverBufferLength(final int length)
        {
            this.toDriverBufferLength = length;
            return this;
        }

        /**
         * Capacity of the to-driver ring.
         *
         * @return bytes, trailer excluded.
         */
        public int toDriverBufferLength()
        {
            return toDriverBufferLength;
        }

        /**
         * Set the capacity of the to-clients broadcast.
         *
         * @param length a power of two; the trailer is added.
         * @return this for a fluent API.
         */
        public Context toClientsBufferLength(final int length)
        {
            this.toClientsBufferLength = length;
            return this;
        }

        /**
         * Capacity of the to-clients broadcast.
         *
         * @return bytes, trailer excluded.
         */
        public int toClientsBufferLength()
        {
            return toClientsBufferLength;
        }

        /**
         * Set the length of the counters values buffer.
         *
         * @param length a power of two; the metadata buffer is four times longer.
         * @return this for a fluent API.
         */
        public Context countersBufferLength(final int length)
        {
            this.countersBufferLength = length;
            return this;
        }

        /**
         * Length of the counters values buffer.
         *
         * @return bytes.
         */
        public int countersBufferLength()
        {
            return countersBufferLength;
        }

        /**
         * Set the length of the distinct error log.
         *
         * @param length a power of two.
         * @return this for a fluent API.
         */
        public Context errorBufferLength(final int length)
        {
            this.errorBufferLength = length;
            return this;
        }

        /**
         * Length of the distinct error log.
         *
         * @return bytes.
         */
        public int errorBufferLength()
        {
            return errorBufferLength;
        }

        /**
         * Set the most publications one stream id may have at once.
         *
         * @param limit at least 1.
         * @return this for a fluent API.
         */
        public Context streamSessionLimit(final int limit)
        {
            this.streamSessionLimit = limit;
            return this;
        }

        /**
         * Most publications one stream id may have at once.
         *
         * @return the limit.
         */
        public int streamSessionLimit()
        {
            return streamSessionLimit;
        }

        /**
         * Set the most destinations one multi-destination publication may have at once.
         *
         * @param max from 1 to {@link Configuration#PUBLICATION_DESTINATIONS_MAX_LIMIT}.
         * @return this for a fluent API.
         */
        public Context publicationDestinationsMax(final int max)
        {
            this.publicationDestinationsMax = max;
            return this;
        }

        /**
         * Most destinations one multi-destination publication may have at once.
         *
         * @return the limit.
         */
        public int publicationDestinationsMax()
        {
            return publicationDestinationsMax;
        }

        /**
         * Set the idle strategy of the conductor thread.
         *
         * @param idleStrategy to use.
         * @return this for a fluent API.
         */
        public Context conductorIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.conductorIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the conductor thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy conductorIdleStrategy()
        {
            return conductorIdleStrategy;
        }

        /**
         * Set the idle strategy of the sender thread.
         *
         * @param idleStrategy to use.
         * @return this for a fluent API.
         */
        public Context senderIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.senderIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the sender thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy senderIdleStrategy()
        {
            return senderIdleStrategy;
        }

        /**
         * Set the idle strategy of the receiver thread.
         *
         * @param idleStrategy to use.
         * @return this for a fluent API.
         */
        public Context receiverIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.receiverIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the receiver thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy receiverIdleStrategy()
        {
            return receiverIdleStrategy;
        }

        /**
         * Set the idle strategy of the sender-and-receiver thread.
         *
         * @param idleStrategy to use.
         * @return this for a fluent API.
         */
        public Context sharedNetworkIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.sharedNetworkIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the sender-and-receiver thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy sharedNetworkIdleStrategy()
        {
            return sharedNetworkIdleStrategy;
        }

        /**
         * Set the idle strategy of the single driver thread.
         *
         * @param idleStrategy to use.
         * @return this for a fluent API.
         */
        public Context sharedIdleStrategy(final IdleStrategy idleStrategy)
        {
            this.sharedIdleStrategy = idleStrategy;
            return this;
        }

        /**
         * Idle strategy of the single driver thread.
         *
         * @return the idle strategy.
         */
        public IdleStrategy sharedIdleStrategy()
        {
            return sharedIdleStrategy;
        }

        /**
         * Set the CPU of the conductor thread.
         *
         * @param cpu to pin to, or -1.
         * @return this for a fluent API.
         */
        public Context conductorCpu(final int cpu)
        {
            this.conductorCpu = cpu;
            return this;
        }

        /**
         * CPU of the conductor thread.
         *
         * @return the CPU, or -1.
         */
        public int conductorCpu()
        {
            return conductorCpu;
        }

        /**
         * Set the CPU of the sender thread.
         *
         * @param cpu to pin to, or -1.
         * @return this for a fluent API.
         */
        public Context senderCpu(final int cpu)
        {
            this.senderCpu = cpu;
            return this;
        }

        /**
         * CPU of the sender thread.
         *
         * @return the CPU, or -1.
         */
        public int senderCpu()
        {
            return senderCpu;
        }

        /**
         * Set the CPU of the receiver thread.
         *
         * @param cpu to pin to, or -1.
         * @return this for a fluent API.
         */
        public Context receiverCpu(final int cpu)
        {
            this.receiverCpu = cpu;
            return this;
        }

        /**
         * CPU of the receiver thread.
         *
         * @return the CPU, or -1.
         */
        public int receiverCpu()
        {
            return receiverCpu;
        }

        /**
         * Set the CPU of the sender-and-receiver thread.
         *
         * @param cpu to pin to, or -1.
         * @return this for a fluent API.
         */
        public Context sharedNetworkCpu(final int cpu)
        {
            this.sharedNetworkCpu = cpu;
            return this;
        }

        /**
         * CPU of the sender-and-receiver thread.
         *
         * @return the CPU, or -1.
         */
        public int sharedNetworkCpu()
        {
            return sharedNetworkCpu;
        }

        /**
         * Set the CPU of the single driver thread.
         *
         * @param cpu to pin to, or -1.
         * @return this for a fluent API.
         */
        public Context sharedCpu(final int cpu)
        {
            this.sharedCpu = cpu;
            return this;
        }

        /**
         * CPU of the single driver thread.
         *
         * @return the CPU, or -1.
         */
        public int sharedCpu()
        {
            return sharedCpu;
        }

        /**
         * Set the token a TERMINATE_DRIVER command must carry.
         *
         * @param token UTF-8 text, or null to refuse every termination command.
         * @return this for a fluent API.
         */
        public Context terminationToken(final String token)
        {
            this.terminationToken = token;
            return this;
        }

        /**
         * Set the validator of TERMINATE_DRIVER commands, replacing the token check.
         *
         * @param validator to use.
         * @return this for a fluent API.
         */
        public Context terminationValidator(final TerminationValidator validator)
        {
            this.terminationValidator = validator;
            return this;
        }

        /**
         * Validator of TERMINATE_DRIVER commands.
         *
         * @return the validator.
         */
        public TerminationValidator terminationValidator()
        {
            return terminationValidator;
        }

        /**
         * Set what runs, on the conductor thread, after a TERMINATE_DRIVER command was accepted and answered. The
         * standalone driver signals its shutdown; an embedding application typically closes the driver from another
         * thread.
         *
         * @param hook to run.
         * @return this for a fluent API.
         */
        public Context terminationHook(final Runnable hook)
        {
            this.terminationHook = hook;
            return this;
        }

        /**
         * What runs after a termination command was accepted.
         *
         * @return the hook.
         */
        public Runnable terminationHook()
        {
            return terminationHook;
        }

        /**
         * Set the wall clock (heartbeats are epoch milliseconds shared with clients).
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
         * Set the monotonic clock for timers.
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
         * Set how the usable space of the directory's file system is read before a file is created; tests use it to
         * simulate a full file system.
         *
         * @param function from a directory to its usable bytes.
         * @return this for a fluent API.
         */
        public Context usableSpaceFunction(final ToLongFunction<File> function)
        {
            this.usableSpaceFunction = function;
            return this;
        }

        /**
         * How the usable space is read.
         *
         * @return the function.
         */
        public ToLongFunction<File> usableSpaceFunction()
        {
            return usableSpaceFunction;
        }

        /**
         * The application's error handler, called with every error the driver's agents meet after the driver has
         * recorded it in the distinct error log of the CnC file and counted it, so that tools still see it. An
         * exception it throws is recorded in the error log and does not stop the agent.
         *
         * @return the handler, or null for none.
         */
        public ErrorHandler errorHandler()
        {
            return errorHandler;
        }

        /**
         * Set the application's error handler: see {@link #errorHandler()}.
         *
         * @param errorHandler the handler, or null for none.
         * @return this.
         */
        public Context errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        /**
         * The handler the driver's agents report to: error log, counter, then the application's handler. Set when
         * the driver launches.
         *
         * @return the handler, or null before launch.
         */
        ErrorHandler driverErrorHandler()
        {
            return driverErrorHandler;
        }

        Context driverErrorHandler(final ErrorHandler errorHandler)
        {
            this.driverErrorHandler = errorHandler;
            return this;
        }
    }
}
