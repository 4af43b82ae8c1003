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
package io.metaroce.systemtest.netns;

import com.sun.management.OperatingSystemMXBean;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A user-space delay element (the kernel here has no {@code netem}): a UDP relay, run in a middle host of a
 * {@link NetnsTopology} (host C of three, on every plane's bridge), that holds each datagram for a configured one-way
 * delay per plane and direction, with an optional rate limit (a link of that rate with a bounded FIFO buffer whose
 * overflow is dropped and counted, like a switch port) and optional seeded random loss on datagrams from the clients
 * (host A) to the target (host B).
 * <pre>
 *   host A  --plane p--&gt;  host C: DelayStage on &lt;prefix&gt;.p.3:relayPort
 *                          host C  --plane p--&gt;  host B: &lt;prefix&gt;.p.2:port
 *   (publisher's endpoint is C's address; answers come back the same way, through the other direction's line)
 * </pre>
 * Senders address the relay: their endpoint on plane p is C's address on plane p and the relay's port. The relay
 * works like a port-preserving NAT ({@link DelayPlane}): host B sees every client socket of host A as the socket of C
 * with the same port number, and B answers to the datagram's source (Aeron) or to the source address and the port the
 * sender announced (MetaRoCE's SETUP replyPort); both reach the relay's socket of that flow, which sends the answer
 * on to A from the relay's port, the address A sent to. So both systems run through it unchanged.
 * <p>
 * Per plane: one receiving thread ({@link DelayPlane}, a selector over the plane's sockets, blocking without a
 * timeout) and one releasing thread per direction ({@link DelayLine}): datagrams are received straight into a
 * preallocated ring of 2 KiB slots and released by deadline, in order, by a thread that parks until the head's
 * deadline and sends everything due at each wake. Nothing spins; the only allocation per datagram is the JDK's
 * decoding of a client's source address when it differs from the previous datagram's ({@link DelayPlane} says why).
 * <p>
 * Accuracy: a datagram is released at its deadline plus the park's oversleep (the thread's timer slack, which the
 * stage lowers from the kernel's 50 us to 1 us, plus the wake-up latency of the machine) plus the time to send the
 * datagrams before it in the same wake; it is never released early. Its arrival is taken when the relay reads it,
 * after the receiving thread woke, so the receiving side's wake-up latency is not in the hold. The statistics report
 * the lateness (release minus deadline) per plane and direction; {@code docs/performance.md} gives measured values
 * and the packet rate the relay sustains.
 * <p>
 * Usage: {@code DelayStage --plane <listen host:port>=<target host:port> [--plane ...] [--delay-us n] [--mbit n]
 * [--queue-bytes n] [--loss-percent x] [--seed n] [--slots n] [--realtime-priority n]}: one {@code --plane} per
 * plane, in plane order. Prints {@code SEED seed=<n>}, {@code READY ...}, a {@code FLOW} line per client as it
 * appears, {@code STATS} lines (one per plane and direction, see {@link DelayLine}) for each {@code stats} line read
 * from standard input, {@code MARKED} for each {@code mark} line (see {@link #mark()}), and at the end of its input
 * {@code FINAL} lines of the same form, one {@code PLANE} line per plane ({@code flows}, {@code flows_refused},
 * {@code ports_not_preserved}, {@code read_errors}), {@code PROCESS} with the JVM's CPU time and uptime ({@code
 * cpu_ms}, {@code uptime_ms}) and {@code DONE}.
 */
public final class DelayStage implements AutoCloseable
{
    /**
     * Port the relay listens on by default on every plane: below Linux's ephemeral range, so that no client socket's
     * port (which the relay binds again on its own address) is the relay's.
     */
    public static final int DEFAULT_RELAY_PORT = 24_456;

    private static final long JOIN_TIMEOUT_MS = 5_000;
    private static final String TIMER_SLACK_NS = "1000";
    private static final int MIN_SLOTS = 4096;
    private static final int MAX_SLOTS = 32_768;
    private static final int SMALLEST_DATAGRAM_SHARE = 128;

    private final Context ctx;
    private final List<DelayPlane> planes = new ArrayList<>();
    private final List<DelayLine> lines = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch started;

    private DelayStage(final Context ctx)
    {
        this.ctx = ctx;
        this.started = new CountDownLatch(3 * ctx.listenAddresses().size());
    }

    /**
     * Bind every plane and start its threads.
     *
     * @param ctx the settings; concluded here.
     * @return the running stage.
     */
    public static DelayStage start(final Context ctx)
    {
        ctx.conclude();
        final DelayStage stage = new DelayStage(ctx);
        final long delayNs = TimeUnit.MICROSECONDS.toNanos(ctx.delayUs());
        final long bitsPerSecond = ctx.mbit() * 1_000_000L;
        try
        {
            for (int plane = 0; plane < ctx.listenAddresses().size(); plane++)
            {
                final DelayLine forward = new DelayLine("plane" + plane + "-forward", ctx.slots(), delayNs,
                    bitsPerSecond, ctx.queueBytes(), ctx.lossPercent() / 100.0, ctx.seed() + 2L * plane);
                final DelayLine backward = new DelayLine("plane" + plane + "-backward", ctx.slots(), delayNs,
                    bitsPerSecond, ctx.queueBytes(), 0.0, ctx.seed() + 2L * plane + 1);
                stage.lines.add(forward);
                stage.lines.add(backward);
                stage.planes.add(new DelayPlane(
                    plane, ctx.listenAddresses().get(plane), ctx.targets().get(plane), forward, backward));
            }
        }
        catch (final RuntimeException ex)
        {
            stage.closePlanes();
            throw ex;
        }
        for (final DelayLine line : stage.lines)
        {
            final Thread thread = new Thread(() -> stage.tuned(line), "delay-" + line.name());
            line.releaser(thread);
            stage.threads.add(thread);
        }
        for (final DelayPlane plane : stage.planes)
        {
            stage.threads.add(new Thread(() -> stage.tuned(plane), "delay-plane" + plane.plane() + "-receive"));
        }
        for (final Thread thread : stage.threads)
        {
            thread.setDaemon(true);
            thread.start();
        }
        stage.awaitThreads();

        return stage;
    }

    /**
     * Run a stage until standard input ends; see the class description.
     *
     * @param args see the class description.
     * @throws IOException if standard input cannot be read.
     */
    public static void main(final String[] args) throws IOException
    {
        final Context ctx = Context.parse(args);
        final DelayStage stage = start(ctx);
        System.out.println("SEED seed=" + ctx.seed());
        System.out.println(String.format(Locale.ROOT, "READY planes=%d delay_us=%d mbit=%d queue_bytes=%d " +
            "loss_percent=%s slots=%d realtime_priority=%d", ctx.listenAddresses().size(), ctx.delayUs(), ctx.mbit(),
            ctx.queueBytes(), ctx.lossPercent(), ctx.slots(), ctx.realtimePriority()));
        final BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; null != (line = input.readLine()); )
        {
            if ("stats".equals(line.trim()))
            {
                stage.statistics("STATS").forEach(System.out::println);
            }
            else if ("mark".equals(line.trim()))
            {
                stage.mark();
                System.out.println("MARKED");
            }
        }
        stage.close();
        stage.statistics("FINAL").forEach(System.out::println);
        for (final DelayPlane plane : stage.planes)
        {
            System.out.println("PLANE plane=" + plane.plane() + " flows=" + plane.flowCount() + " flows_refused=" +
                plane.flowsRefused() + " ports_not_preserved=" + plane.portsNotPreserved() + " read_errors=" +
                plane.readErrors());
        }
        final long cpuNs = ((OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        System.out.println("PROCESS cpu_ms=" + TimeUnit.NANOSECONDS.toMillis(cpuNs) + " uptime_ms=" +
            ManagementFactory.getRuntimeMXBean().getUptime());
        System.out.println("DONE");
    }

    /**
     * One line per plane and direction: {@code <word> plane=<p> direction=forward|backward} and the line's counters.
     *
     * @param word the first word of each line.
     * @return the lines.
     */
    public List<String> statistics(final String word)
    {
        final List<String> statistics = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++)
        {
            statistics.add(word + " plane=" + (i / 2) + " direction=" + (0 == i % 2 ? "forward" : "backward") + " " +
                lines.get(i).statistics());
        }

        return statistics;
    }

    /**
     * Start the lateness and hold statistics of every line again, e.g. when a measured phase begins, so that they
     * leave out the first datagrams through a cold JVM; the counters go on.
     */
    public void mark()
    {
        for (final DelayLine line : lines)
        {
            line.mark();
        }
    }

    /**
     * The settings it runs with.
     *
     * @return the concluded context.
     */
    public Context context()
    {
        return ctx;
    }

    /**
     * Stop every thread and close every socket; datagrams still held are not sent.
     */
    public void close()
    {
        for (final DelayLine line : lines)
        {
            line.stop();
        }
        for (final DelayPlane plane : planes)
        {
            plane.stop();
        }
        try
        {
            for (final Thread thread : threads)
            {
                thread.join(JOIN_TIMEOUT_MS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        closePlanes();
    }

    /**
     * Start a stage in a host of a topology that relays every plane from its address on the plane and
     * {@link #DEFAULT_RELAY_PORT} to a target host's address on the plane and a port, and wait until it is ready.
     *
     * @param topology   the topology, with at least three hosts (the relay must not be the clients' or target's).
     * @param relay      the host it runs in.
     * @param target     the host datagrams from clients go to.
     * @param targetPort the target's port on every plane.
     * @param ctx        delay, rate, buffer, loss and seed; its planes are filled in here.
     * @return the running process; {@link #finish(NetnsProcess, long)} ends it.
     */
    public static NetnsProcess startIn(
        final NetnsTopology topology, final Host relay, final Host target, final int targetPort, final Context ctx)
    {
        final List<String> args = new ArrayList<>();
        for (int plane = 0; plane < topology.planeCount(); plane++)
        {
            args.add("--plane");
            args.add(topology.address(relay, plane) + ":" + DEFAULT_RELAY_PORT + "=" + topology.address(target, plane) +
                ":" + targetPort);
        }
        args.addAll(ctx.arguments());
        final NetnsProcess process = topology.javaProcess(relay, new JavaCommand(DelayStage.class.getName())
            .jvmOption("-Xmx64m")
            .jvmOption("-XX:MaxDirectMemorySize=512m")
            .args(args.toArray(new String[0])));
        process.awaitLine("READY", JOIN_TIMEOUT_MS * 6);

        return process;
    }

    /**
     * End a stage started by {@link #startIn} and return its final statistics.
     *
     * @param process   the stage's process.
     * @param timeoutMs longest wait for it to report and exit.
     * @return its {@code FINAL}, {@code PLANE} and {@code PROCESS} lines.
     */
    public static List<KeyValueLine> finish(final NetnsProcess process, final long timeoutMs)
    {
        process.closeInput();
        process.awaitLine("DONE", timeoutMs);
        final List<KeyValueLine> statistics = new ArrayList<>();
        for (final String line : process.lines())
        {
            if (line.startsWith("FINAL ") || line.startsWith("PLANE ") || line.startsWith("PROCESS "))
            {
                statistics.add(KeyValueLine.parse(line));
            }
        }
        process.awaitExit(timeoutMs);

        return statistics;
    }

    /**
     * The sum of a counter over the {@code FINAL} lines of a direction.
     *
     * @param statistics what {@link #finish(NetnsProcess, long)} returned.
     * @param direction  {@code forward} or {@code backward}.
     * @param key        the counter, e.g. {@code forwarded}.
     * @return the sum over the planes.
     */
    public static long sum(final List<KeyValueLine> statistics, final String direction, final String key)
    {
        long sum = 0;
        for (final KeyValueLine line : statistics)
        {
            if ("FINAL".equals(line.word()) && direction.equals(line.string("direction")))
            {
                sum += line.longValue(key);
            }
        }

        return sum;
    }

    /**
     * The largest value of a statistic over the {@code FINAL} lines of every plane and direction.
     *
     * @param statistics what {@link #finish(NetnsProcess, long)} returned.
     * @param key        the statistic, e.g. {@code late_p99_us}.
     * @return the largest value.
     */
    public static long max(final List<KeyValueLine> statistics, final String key)
    {
        long max = 0;
        for (final KeyValueLine line : statistics)
        {
            if ("FINAL".equals(line.word()))
            {
                max = Math.max(max, line.longValue(key));
            }
        }

        return max;
    }

    /**
     * Run a thread of the stage with a timer slack of 1 us (the kernel's default of 50 us would add that much to every
     * release) and, when asked for, a real-time priority, so that a loaded machine delays its wake-ups less.
     */
    private void tuned(final Runnable body)
    {
        try
        {
            final String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            final String tid = self.substring(self.lastIndexOf('/') + 1);
            // the slack first, so that a thread the real-time priority is refused to still wakes on time
            Files.writeString(Path.of("/proc/" + tid + "/timerslack_ns"), TIMER_SLACK_NS);
            if (ctx.realtimePriority() > 0)
            {
                final Process chrt = new ProcessBuilder("chrt", "-f", "-p", Integer.toString(ctx.realtimePriority()),
                    tid).redirectErrorStream(true).start();
                final String output = new String(chrt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (0 != chrt.waitFor())
                {
                    System.out.println("WARNING no real-time priority for " + Thread.currentThread().getName() + ": " +
                        output.trim());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            System.out.println("WARNING default timer slack for " + Thread.currentThread().getName() + ": " + ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        started.countDown();
        body.run();
    }

    /**
     * Return once every thread has been tuned and is about to run, so that no datagram waits for a thread's start.
     */
    private void awaitThreads()
    {
        try
        {
            if (!started.await(JOIN_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                close();
                throw new IllegalStateException("the delay stage's threads did not start within " + JOIN_TIMEOUT_MS +
                    " ms");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting the delay stage", ex);
        }
    }

    private void closePlanes()
    {
        for (final DelayPlane plane : planes)
        {
            plane.close();
        }
    }

    /**
     * Settings of a stage: fluent setters, validated by {@link #conclude()}.
     */
    public static final class Context
    {
        private final List<InetSocketAddress> listenAddresses = new ArrayList<>();
        private final List<InetSocketAddress> targets = new ArrayList<>();
        private long delayUs = 5_000;
        private int mbit;
        private long queueBytes = -1;
        private double lossPercent;
        private long seed = ThreadLocalRandom.current().nextLong();
        private int slots;
        private int realtimePriority;

        /**
         * Settings from command-line arguments; see the class description.
         *
         * @param args the arguments.
         * @return the settings, not yet concluded.
         * @throws IllegalArgumentException naming the argument that is wrong.
         */
        public static Context parse(final String[] args)
        {
            final Context ctx = new Context();
            for (int i = 0; i < args.length; i += 2)
            {
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                final String value = args[i + 1];
                switch (args[i])
                {
                    case "--plane":
                        final String[] ends = value.split("=");
                        if (2 != ends.length)
                        {
                            throw new IllegalArgumentException("--plane must be <listen host:port>=<target " +
                                "host:port>: " + value);
                        }
                        ctx.plane(socketAddress(ends[0]), socketAddress(ends[1]));
                        break;
                    case "--delay-us":
                        ctx.delayUs(Long.parseLong(value));
                        break;
                    case "--mbit":
                        ctx.mbit(Integer.parseInt(value));
                        break;
                    case "--queue-bytes":
                        ctx.queueBytes(Long.parseLong(value));
                        break;
                    case "--loss-percent":
                        ctx.lossPercent(Double.parseDouble(value));
                        break;
                    case "--seed":
                        ctx.seed(Long.parseLong(value));
                        break;
                    case "--slots":
                        ctx.slots(Integer.parseInt(value));
                        break;
                    case "--realtime-priority":
                        ctx.realtimePriority(Integer.parseInt(value));
                        break;
                    default:
                        throw new IllegalArgumentException("unknown argument " + args[i] + "; known: --plane, " +
                            "--delay-us, --mbit, --queue-bytes, --loss-percent, --seed, --slots, " +
                            "--realtime-priority");
                }
            }

            return ctx;
        }

        /**
         * Add a plane: where clients send to and where their datagrams go.
         *
         * @param listenAddress the relay's address and port on the plane.
         * @param target        the target's address and port on the plane.
         * @return this for a fluent API.
         */
        public Context plane(final InetSocketAddress listenAddress, final InetSocketAddress target)
        {
            listenAddresses.add(listenAddress);
            targets.add(target);
            return this;
        }

        /**
         * The relay's address and port per plane.
         *
         * @return one per plane.
         */
        public List<InetSocketAddress> listenAddresses()
        {
            return listenAddresses;
        }

        /**
         * The target's address and port per plane.
         *
         * @return one per plane.
         */
        public List<InetSocketAddress> targets()
        {
            return targets;
        }

        /**
         * One-way delay of every plane and direction in microseconds, 0 to 10 s. Default 5,000 (10 ms RTT).
         *
         * @param delayUs the delay.
         * @return this for a fluent API.
         */
        public Context delayUs(final long delayUs)
        {
            this.delayUs = delayUs;
            return this;
        }

        /**
         * One-way delay in microseconds.
         *
         * @return the delay.
         */
        public long delayUs()
        {
            return delayUs;
        }

        /**
         * Rate of every plane in each direction, in Mb/s of Ethernet frames; 0 for none. Default 0.
         *
         * @param mbit the rate.
         * @return this for a fluent API.
         */
        public Context mbit(final int mbit)
        {
            this.mbit = mbit;
            return this;
        }

        /**
         * Rate per plane and direction in Mb/s.
         *
         * @return the rate, 0 for none.
         */
        public int mbit()
        {
            return mbit;
        }

        /**
         * Buffer in front of each rate-limited link, in frame bytes. Default: one round trip at the rate (the
         * bandwidth-delay product), at least 64 KiB.
         *
         * @param queueBytes the buffer.
         * @return this for a fluent API.
         */
        public Context queueBytes(final long queueBytes)
        {
            this.queueBytes = queueBytes;
            return this;
        }

        /**
         * Buffer in front of each rate-limited link.
         *
         * @return bytes, or -1 before {@link #conclude()} for the default.
         */
        public long queueBytes()
        {
            return queueBytes;
        }

        /**
         * Share of the datagrams from clients to the target dropped at random on arrival, in percent, 0 to 100.
         * Default 0.
         *
         * @param lossPercent the share.
         * @return this for a fluent API.
         */
        public Context lossPercent(final double lossPercent)
        {
            this.lossPercent = lossPercent;
            return this;
        }

        /**
         * Random loss from clients to the target in percent.
         *
         * @return the share.
         */
        public double lossPercent()
        {
            return lossPercent;
        }

        /**
         * Seed of the random loss (plane p's forward line uses {@code seed + 2p}). Default: random, printed.
         *
         * @param seed the seed.
         * @return this for a fluent API.
         */
        public Context seed(final long seed)
        {
            this.seed = seed;
            return this;
        }

        /**
         * Seed of the random loss.
         *
         * @return the seed.
         */
        public long seed()
        {
            return seed;
        }

        /**
         * Datagrams each line can hold, a power of two. Default: enough for the delay and the buffer at the rate in
         * 128-byte datagrams, 4,096 to 32,768 (4,096 without a rate); a datagram that finds every slot held is dropped
         * and counted ({@code ring_drops}).
         *
         * @param slots the capacity.
         * @return this for a fluent API.
         */
        public Context slots(final int slots)
        {
            this.slots = slots;
            return this;
        }

        /**
         * Datagrams each line can hold.
         *
         * @return the capacity, or 0 before {@link #conclude()} for the default.
         */
        public int slots()
        {
            return slots;
        }

        /**
         * SCHED_FIFO priority of the stage's threads (set with {@code chrt}, which needs root), 1 to 99, or 0 for the
         * normal scheduler; the timer slack is 1 us either way. Default 0. A real-time relay is woken ahead of the
         * drivers, as a network would not wait for the hosts' CPUs; it never spins, so it takes no more CPU than it
         * uses.
         *
         * @param realtimePriority the priority, 0 for none.
         * @return this for a fluent API.
         */
        public Context realtimePriority(final int realtimePriority)
        {
            this.realtimePriority = realtimePriority;
            return this;
        }

        /**
         * SCHED_FIFO priority of the stage's threads.
         *
         * @return the priority, 0 for none.
         */
        public int realtimePriority()
        {
            return realtimePriority;
        }

        /**
         * The settings as command-line arguments for {@link #parse(String[])}, without the planes.
         *
         * @return the arguments.
         */
        public List<String> arguments()
        {
            final List<String> args = new ArrayList<>(List.of("--delay-us", Long.toString(delayUs),
                "--mbit", Integer.toString(mbit), "--loss-percent", Double.toString(lossPercent),
                "--seed", Long.toString(seed)));
            if (queueBytes >= 0)
            {
                args.addAll(List.of("--queue-bytes", Long.toString(queueBytes)));
            }
            if (slots > 0)
            {
                args.addAll(List.of("--slots", Integer.toString(slots)));
            }
            if (realtimePriority > 0)
            {
                args.addAll(List.of("--realtime-priority", Integer.toString(realtimePriority)));
            }

            return args;
        }

        /**
         * Fill in defaults and validate.
         *
         * @return this for a fluent API.
         * @throws IllegalArgumentException naming the setting that is wrong.
         */
        public Context conclude()
        {
            if (listenAddresses.isEmpty())
            {
                throw new IllegalArgumentException("--plane: at least one plane is needed");
            }
            if (delayUs < 0 || delayUs > 10_000_000)
            {
                throw new IllegalArgumentException("--delay-us " + delayUs + " is not in 0..10000000");
            }
            if (mbit < 0 || mbit > 100_000)
            {
                throw new IllegalArgumentException("--mbit " + mbit + " is not in 0..100000 (0: no rate limit)");
            }
            if (!(lossPercent >= 0.0 && lossPercent <= 100.0))
            {
                throw new IllegalArgumentException("--loss-percent " + lossPercent + " is not in 0..100");
            }
            final long bytesPerSecond = mbit * 1_000_000L / 8;
            if (queueBytes < 0)
            {
                queueBytes = Math.max(64 * 1024, bytesPerSecond * 2 * delayUs / 1_000_000);
            }
            if (0 == slots)
            {
                final long heldBytes = bytesPerSecond * delayUs / 1_000_000 + queueBytes;
                slots = 0 == mbit ? MIN_SLOTS : (int)Math.min(MAX_SLOTS,
                    Math.max(MIN_SLOTS, Long.highestOneBit(heldBytes / SMALLEST_DATAGRAM_SHARE) * 2));
            }
            if (realtimePriority < 0 || realtimePriority > 99)
            {
                throw new IllegalArgumentException("--realtime-priority " + realtimePriority + " is not in 0..99");
            }
            if (Integer.bitCount(slots) != 1 || slots > 1 << 20)
            {
                throw new IllegalArgumentException("--slots " + slots + " must be a power of two up to 1048576");
            }

            return this;
        }

        private static InetSocketAddress socketAddress(final String hostPort)
        {
            final int colon = hostPort.lastIndexOf(':');
            if (colon < 1)
            {
                throw new IllegalArgumentException("--plane: '" + hostPort + "' is not host:port");
            }
            return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        }
    }
}
