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

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hosts in their own Linux network namespaces joined by one network per plane (a veth pair per plane for two hosts,
 * a bridge per plane for more), built and changed through {@code netns.sh}: the hosts' addresses, injected random
 * loss (nftables), rate limits (tc tbf), link failures, UDP and drop statistics, and JVMs running inside the hosts.
 * <pre>
 *   namespace &lt;name&gt;-a                              namespace &lt;name&gt;-b
 *   &lt;name&gt;a0  &lt;prefix&gt;.0.1/24  ---- plane 0 ----  &lt;name&gt;b0  &lt;prefix&gt;.0.2/24
 *   &lt;name&gt;a1  &lt;prefix&gt;.1.1/24  ---- plane 1 ----  &lt;name&gt;b1  &lt;prefix&gt;.1.2/24
 * </pre>
 * {@link #close()} kills every process started here and deletes the namespaces, which removes their devices,
 * qdiscs and nftables tables; use try-with-resources so that it happens when a test fails too. A shutdown hook
 * closes what is still open when the JVM exits, and the first topology of a JVM removes stale topologies left by
 * killed runs (whose owning process is gone).
 * <p>
 * Methods are safe to call from one thread at a time; {@link #close()} may come from the shutdown hook.
 */
public final class NetnsTopology implements AutoCloseable
{
    private static final Set<NetnsTopology> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean STALE_CLEANED = new AtomicBoolean();
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final Pattern ROOT_QDISC_BYTES =
        Pattern.compile("\\{\"kind\":\"[a-z_]+\",\"handle\":\"[^\"]*\",\"dev\":\"([^\"]+)\".*?\"bytes\":(\\d+)");

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(NetnsTopology::closeAllOpen, "netns-cleanup"));
    }

    private final NetnsScript script;
    private final String name;
    private final int hostCount;
    private final int planeCount;
    private final String prefix;
    private final Path outputDir;
    private final List<NetnsProcess> processes = new ArrayList<>();
    private final AtomicInteger processSequence = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    private NetnsTopology(
        final NetnsScript script,
        final String name,
        final int hostCount,
        final int planeCount,
        final String prefix,
        final Path outputDir)
    {
        this.script = script;
        this.name = name;
        this.hostCount = hostCount;
        this.planeCount = planeCount;
        this.prefix = prefix;
        this.outputDir = outputDir;
    }

    /**
     * Two hosts, {@link Host#A} and {@link Host#B}, joined by {@code planes} veth pairs, with a generated name.
     *
     * @param planes number of planes, 1 to 16.
     * @return the topology, up and running.
     * @throws NetnsException if it cannot be built (then nothing of it is left).
     */
    public static NetnsTopology create(final int planes)
    {
        return create(new Context().planes(planes));
    }

    /**
     * {@code hosts} hosts joined by one network per plane, with a generated name.
     *
     * @param hosts  number of hosts, 2 to 8.
     * @param planes number of planes, 1 to 16.
     * @return the topology, up and running.
     * @throws NetnsException if it cannot be built (then nothing of it is left).
     */
    public static NetnsTopology create(final int hosts, final int planes)
    {
        return create(new Context().hosts(hosts).planes(planes));
    }

    /**
     * A topology as configured.
     *
     * @param ctx the settings; concluded here.
     * @return the topology, up and running.
     * @throws NetnsException if it cannot be built (then nothing of it is left).
     */
    public static NetnsTopology create(final Context ctx)
    {
        ctx.conclude();
        final NetnsScript script = ctx.script();
        if (STALE_CLEANED.compareAndSet(false, true))
        {
            script.run("clean");
        }

        final List<String> args = new ArrayList<>(List.of("up", ctx.name(), Integer.toString(ctx.planes())));
        if (null != ctx.subnetPrefix())
        {
            args.add(ctx.subnetPrefix());
        }
        args.addAll(List.of(
            "--hosts", Integer.toString(ctx.hosts()), "--owner", Long.toString(ProcessHandle.current().pid())));
        final String shown = script.run(args.toArray(new String[0]));

        final NetnsTopology topology;
        try
        {
            final KeyValueLine header = headerLine(shown);
            topology = new NetnsTopology(
                script,
                ctx.name(),
                header.intValue("hosts"),
                header.intValue("planes"),
                header.string("prefix"),
                ctx.outputDir().resolve(ctx.name()));
            Files.createDirectories(topology.outputDir);
        }
        catch (final RuntimeException | IOException ex)
        {
            script.tryRun("down", ctx.name());
            throw new NetnsException("topology " + ctx.name() + " is unusable: " + ex.getMessage() + "\n" + shown, ex);
        }
        OPEN.add(topology);

        return topology;
    }

    /**
     * Remove topologies whose owning process is gone (left by killed runs). {@link #create(Context)} does this once
     * per JVM by itself.
     *
     * @return what was removed, as {@code netns.sh clean} reports it.
     */
    public static String cleanStale()
    {
        return NetnsScript.locate().run("clean");
    }

    /**
     * Name of the topology: the prefix of its namespace and device names.
     *
     * @return the name.
     */
    public String name()
    {
        return name;
    }

    /**
     * Number of hosts.
     *
     * @return hosts, at least 2.
     */
    public int hostCount()
    {
        return hostCount;
    }

    /**
     * Number of planes.
     *
     * @return planes, at least 1.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * Namespace of a host, for {@code ip netns exec}.
     *
     * @param host the host.
     * @return for example {@code mr1234a-b}.
     */
    public String namespace(final Host host)
    {
        checkHost(host);
        return name + "-" + host.letter();
    }

    /**
     * Device of a host on a plane, inside the host's namespace.
     *
     * @param host  the host.
     * @param plane the plane.
     * @return the device name.
     */
    public String device(final Host host, final int plane)
    {
        checkHost(host);
        checkPlane(plane);
        return name + host.letter() + plane;
    }

    /**
     * IPv4 address of a host on a plane.
     *
     * @param host  the host.
     * @param plane the plane.
     * @return the dotted address, {@code <prefix>.<plane>.<host number>}.
     */
    public String address(final Host host, final int plane)
    {
        checkHost(host);
        checkPlane(plane);
        return prefix + "." + plane + "." + (host.ordinal() + 1);
    }

    /**
     * Socket address of a host on a plane.
     *
     * @param host  the host.
     * @param plane the plane.
     * @param port  the UDP port.
     * @return the socket address (resolved, no name lookup).
     */
    public InetSocketAddress socketAddress(final Host host, final int plane, final int port)
    {
        return new InetSocketAddress(address(host, plane), port);
    }

    /**
     * Drop a share of the UDP packets that arrive at {@link Host#B} on a plane, at random.
     *
     * @param plane   the plane.
     * @param percent 0 to 100 in steps of 0.01; 0 removes the drop.
     */
    public void drop(final int plane, final double percent)
    {
        drop(plane, percent, Host.B);
    }

    /**
     * Drop a share of the UDP packets that arrive at a host on a plane, at random (nftables
     * {@code numgen random mod 10000 < percent * 100}), counted in {@link #planeCounters(int, Host)}.
     *
     * @param plane    the plane.
     * @param percent  0 to 100 in steps of 0.01; 0 removes the drop.
     * @param receiver the host whose arriving packets are dropped.
     */
    public void drop(final int plane, final double percent, final Host receiver)
    {
        checkPlane(plane);
        checkHost(receiver);
        script.run("drop", name, Integer.toString(plane), percentArgument(percent), receiver.letter());
    }

    /**
     * Limit what {@link Host#A} sends on a plane.
     *
     * @param plane the plane.
     * @param mbit  rate in megabits per second, 1 to 100000.
     */
    public void rateLimit(final int plane, final int mbit)
    {
        rateLimit(plane, mbit, Host.A);
    }

    /**
     * Limit what a host sends on a plane with tc tbf: burst max(32 KiB, 1 ms at the rate), latency 20 ms.
     *
     * @param plane  the plane.
     * @param mbit   rate in megabits per second, 1 to 100000.
     * @param sender the host whose egress is limited.
     */
    public void rateLimit(final int plane, final int mbit, final Host sender)
    {
        checkPlane(plane);
        checkHost(sender);
        if (mbit < 1 || mbit > 100_000)
        {
            throw new IllegalArgumentException("mbit " + mbit + " is not in 1..100000");
        }
        script.run("rate", name, Integer.toString(plane), Integer.toString(mbit), sender.letter());
    }

    /**
     * Remove a rate limit; nothing happens if there is none.
     *
     * @param plane  the plane.
     * @param sender the host whose egress was limited.
     */
    public void removeRateLimit(final int plane, final Host sender)
    {
        checkPlane(plane);
        checkHost(sender);
        script.run("rate", name, Integer.toString(plane), "off", sender.letter());
    }

    /**
     * Take a host's device of a plane down. On the sending host, sends fail at once ("Network is unreachable");
     * on the receiving host, the sender sees no error and its packets vanish.
     *
     * @param plane the plane.
     * @param host  the host.
     */
    public void linkDown(final int plane, final Host host)
    {
        checkPlane(plane);
        checkHost(host);
        script.run("link", name, Integer.toString(plane), "down", host.letter());
    }

    /**
     * Bring a host's device of a plane up; returns when it is operationally up.
     *
     * @param plane the plane.
     * @param host  the host.
     */
    public void linkUp(final int plane, final Host host)
    {
        checkPlane(plane);
        checkHost(host);
        script.run("link", name, Integer.toString(plane), "up", host.letter());
    }

    /**
     * The {@code Udp:} counters of {@code /proc/net/snmp} in a host's namespace.
     *
     * @param host the host.
     * @return the counters since the namespace was made.
     */
    public UdpStats udpStats(final Host host)
    {
        checkHost(host);
        return UdpStats.parse(script.run("udp-stats", name, host.letter()));
    }

    /**
     * The UDP sockets of a host's namespace with their receive queues and drops.
     *
     * @param host the host.
     * @return one entry per socket.
     */
    public List<UdpSocketStats> udpSockets(final Host host)
    {
        checkHost(host);
        final List<UdpSocketStats> sockets = new ArrayList<>();
        for (final String line : script.run("udp-sockets", name, host.letter()).split("\n"))
        {
            if (line.startsWith("local="))
            {
                sockets.add(UdpSocketStats.parse(line));
            }
        }

        return sockets;
    }

    /**
     * The nftables counters of a plane at a host: UDP packets arrived and packets dropped by {@link #drop}.
     *
     * @param plane the plane.
     * @param host  the receiving host.
     * @return the counters since the topology was made.
     */
    public PlaneCounters planeCounters(final int plane, final Host host)
    {
        checkPlane(plane);
        checkHost(host);
        for (final String line : script.run("nft-stats", name, host.letter()).split("\n"))
        {
            if (line.startsWith("host=") && KeyValueLine.parse(line).intValue("plane") == plane)
            {
                return PlaneCounters.parse(line);
            }
        }

        throw new NetnsException("nft-stats printed no counters for plane " + plane + " of host " + host.letter());
    }

    /**
     * Packets dropped so far by the injected loss on a plane at {@link Host#B}.
     *
     * @param plane the plane.
     * @return dropped packets.
     */
    public long dropCounter(final int plane)
    {
        return planeCounters(plane, Host.B).dropPackets();
    }

    /**
     * The root qdisc of a host's device of a plane and its counters.
     *
     * @param plane the plane.
     * @param host  the host.
     * @return the qdisc's counters.
     */
    public QdiscStats qdiscStats(final int plane, final Host host)
    {
        checkPlane(plane);
        checkHost(host);
        for (final String line : script.run("tc-stats", name, host.letter()).split("\n"))
        {
            if (line.startsWith("host=") && KeyValueLine.parse(line).intValue("plane") == plane)
            {
                return QdiscStats.parse(line);
            }
        }

        throw new NetnsException("tc-stats printed nothing for plane " + plane + " of host " + host.letter());
    }

    /**
     * Bytes that left the root qdiscs of a host's devices of planes 0 to {@code planes - 1}, in one {@code tc} call in
     * the namespace (milliseconds), for sampling while traffic runs; {@link #qdiscStats(int, Host)} runs the script,
     * which costs about a second of CPU on 2 cores.
     *
     * @param host   the host.
     * @param planes how many planes, from plane 0.
     * @return the sum of their {@code sentBytes}.
     */
    public long qdiscSentBytes(final Host host, final int planes)
    {
        checkHost(host);
        checkPlane(planes - 1);
        final String json = exec(host, "tc", "-s", "-j", "qdisc", "show");
        final Matcher matcher = ROOT_QDISC_BYTES.matcher(json);
        long bytes = 0;
        int found = 0;
        while (matcher.find())
        {
            for (int plane = 0; plane < planes; plane++)
            {
                if (matcher.group(1).equals(device(host, plane)))
                {
                    bytes += Long.parseLong(matcher.group(2));
                    found++;
                }
            }
        }
        if (found != planes)
        {
            throw new NetnsException("tc printed the counters of " + found + " of " + planes + " qdiscs: " + json);
        }

        return bytes;
    }

    /**
     * Run a short command inside a host's namespace and return its output, for example {@code ip -s link}.
     *
     * @param host    the host.
     * @param command the command and its arguments.
     * @return standard output and error together.
     * @throws NetnsException if it exits non-zero or times out.
     */
    public String exec(final Host host, final String... command)
    {
        checkHost(host);
        final List<String> args = new ArrayList<>(List.of("exec", name, host.letter()));
        args.addAll(List.of(command));
        return script.run(args.toArray(new String[0]));
    }

    /**
     * Start a JVM inside a host's namespace with the test class path and the default JVM options.
     *
     * @param host      the host.
     * @param mainClass the class with {@code main}.
     * @param args      its arguments.
     * @return the running process; closed with the topology at the latest.
     */
    public NetnsProcess javaProcess(final Host host, final String mainClass, final String... args)
    {
        return javaProcess(host, new JavaCommand(mainClass).args(args));
    }

    /**
     * Start a JVM inside a host's namespace. Its standard output and error go to {@code <name>.out} and
     * {@code <name>.err} in this topology's output directory.
     *
     * @param host    the host.
     * @param command what to run.
     * @return the running process; closed with the topology at the latest.
     */
    public NetnsProcess javaProcess(final Host host, final JavaCommand command)
    {
        checkHost(host);
        if (closed.get())
        {
            throw new IllegalStateException("topology " + name + " is closed");
        }

        final String mainClass = command.mainClass();
        final String processName = null != command.name() ? command.name() :
            host.letter() + "-" + mainClass.substring(mainClass.lastIndexOf('.') + 1) + "-" +
            processSequence.incrementAndGet();
        final Path stdout = outputDir.resolve(processName + ".out");
        final Path stderr = outputDir.resolve(processName + ".err");
        final ProcessBuilder builder = new ProcessBuilder(script.execCommand(name, host, command.commandLine()))
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .redirectInput(ProcessBuilder.Redirect.PIPE)
            .directory(new File(System.getProperty("user.dir")));
        try
        {
            final NetnsProcess process = new NetnsProcess(processName, host, builder.start(), stdout, stderr);
            synchronized (processes)
            {
                processes.add(process);
            }
            return process;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + processName + " in " + namespace(host), ex);
        }
    }

    /**
     * Directory that holds the output files of this topology's processes.
     *
     * @return the directory.
     */
    public Path outputDir()
    {
        return outputDir;
    }

    /**
     * Kill every process started here and delete the namespaces with all they hold. Idempotent.
     *
     * @throws NetnsException if the namespaces could not be deleted.
     */
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }

        try
        {
            final List<NetnsProcess> toClose;
            synchronized (processes)
            {
                toClose = new ArrayList<>(processes);
            }
            for (int i = toClose.size() - 1; i >= 0; i--)
            {
                toClose.get(i).close();
            }
        }
        finally
        {
            OPEN.remove(this);
            script.run("down", name);
        }
    }

    /**
     * {@inheritDoc}
     */
    public String toString()
    {
        return "NetnsTopology{" + name + ", hosts=" + hostCount + ", planes=" + planeCount + ", prefix=" + prefix + "}";
    }

    /**
     * The argument {@code netns.sh drop} takes for a percentage.
     *
     * @param percent 0 to 100 in steps of 0.01.
     * @return the percentage with two decimals.
     * @throws IllegalArgumentException if it is out of range or not a multiple of 0.01.
     */
    static String percentArgument(final double percent)
    {
        final double basisPoints = percent * 100.0;
        if (!(percent >= 0.0 && percent <= 100.0) || Math.abs(basisPoints - Math.rint(basisPoints)) > 1e-6)
        {
            throw new IllegalArgumentException("percent " + percent + " is not 0..100 in steps of 0.01");
        }
        final long points = (long)Math.rint(basisPoints);

        return String.format(Locale.ROOT, "%d.%02d", points / 100, points % 100);
    }

    private static KeyValueLine headerLine(final String shown)
    {
        for (final String line : shown.split("\n"))
        {
            if (line.startsWith("topology="))
            {
                return KeyValueLine.parse(line);
            }
        }

        throw new NetnsException("netns.sh up printed no topology= line");
    }

    private void checkHost(final Host host)
    {
        if (host.ordinal() >= hostCount)
        {
            throw new IllegalArgumentException("host " + host + " is not in " + this);
        }
    }

    private void checkPlane(final int plane)
    {
        if (plane < 0 || plane >= planeCount)
        {
            throw new IllegalArgumentException("plane " + plane + " is not in 0.." + (planeCount - 1) + " of " + this);
        }
    }

    private static void closeAllOpen()
    {
        for (final NetnsTopology topology : OPEN.toArray(new NetnsTopology[0]))
        {
            try
            {
                topology.close();
            }
            catch (final RuntimeException ex)
            {
                System.err.println("netns: cannot close " + topology + " at exit: " + ex.getMessage());
            }
        }
    }

    /**
     * Settings of a topology: fluent setters, validated by {@link #conclude()}.
     */
    public static final class Context
    {
        private static final String NAME_PATTERN = "[a-z][a-z0-9]{0,11}";
        private static final String PREFIX_PATTERN = "10\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";

        private String name;
        private int hosts = 2;
        private int planes = 1;
        private String subnetPrefix;
        private Path outputDir;
        private NetnsScript script;

        /**
         * Name of the topology, unique on the machine: {@code [a-z][a-z0-9]{0,11}} because it prefixes device names.
         * Default: {@code mr<pid><sequence in letters>}.
         *
         * @param name the name.
         * @return this for a fluent API.
         */
        public Context name(final String name)
        {
            this.name = name;
            return this;
        }

        /**
         * Name of the topology.
         *
         * @return the name, or null before {@link #conclude()} if not set.
         */
        public String name()
        {
            return name;
        }

        /**
         * Number of hosts, 2 to 8. Default 2.
         *
         * @param hosts the number of hosts.
         * @return this for a fluent API.
         */
        public Context hosts(final int hosts)
        {
            this.hosts = hosts;
            return this;
        }

        /**
         * Number of hosts.
         *
         * @return the number of hosts.
         */
        public int hosts()
        {
            return hosts;
        }

        /**
         * Number of planes, 1 to 16. Default 1.
         *
         * @param planes the number of planes.
         * @return this for a fluent API.
         */
        public Context planes(final int planes)
        {
            this.planes = planes;
            return this;
        }

        /**
         * Number of planes.
         *
         * @return the number of planes.
         */
        public int planes()
        {
            return planes;
        }

        /**
         * The first two octets of every address, {@code 10.<x>}. Default: derived from the name by the script.
         *
         * @param subnetPrefix for example {@code "10.77"}.
         * @return this for a fluent API.
         */
        public Context subnetPrefix(final String subnetPrefix)
        {
            this.subnetPrefix = subnetPrefix;
            return this;
        }

        /**
         * The first two octets of every address.
         *
         * @return the prefix, or null for the script's default.
         */
        public String subnetPrefix()
        {
            return subnetPrefix;
        }

        /**
         * Directory under which the topology's folder for process output is made. Default
         * {@link NetnsConfiguration#outputDir()}.
         *
         * @param outputDir the directory.
         * @return this for a fluent API.
         */
        public Context outputDir(final Path outputDir)
        {
            this.outputDir = outputDir;
            return this;
        }

        /**
         * Directory under which the topology's folder for process output is made.
         *
         * @return the directory.
         */
        public Path outputDir()
        {
            return outputDir;
        }

        /**
         * The script to use. Default {@link NetnsScript#locate()}.
         *
         * @param script the script.
         * @return this for a fluent API.
         */
        public Context script(final NetnsScript script)
        {
            this.script = script;
            return this;
        }

        /**
         * The script to use.
         *
         * @return the script.
         */
        public NetnsScript script()
        {
            return script;
        }

        /**
         * Fill in defaults and validate.
         *
         * @return this for a fluent API.
         * @throws IllegalArgumentException naming the setting that is wrong.
         */
        public Context conclude()
        {
            if (null == name)
            {
                name = "mr" + ProcessHandle.current().pid() + letters(SEQUENCE.getAndIncrement());
            }
            if (!name.matches(NAME_PATTERN))
            {
                throw new IllegalArgumentException("name '" + name + "' must match " + NAME_PATTERN +
                    " (it prefixes device names of at most 15 characters)");
            }
            if (hosts < 2 || hosts > Host.values().length)
            {
                throw new IllegalArgumentException("hosts " + hosts + " is not in 2.." + Host.values().length);
            }
            if (planes < 1 || planes > 16)
            {
                throw new IllegalArgumentException("planes " + planes + " is not in 1..16");
            }
            if (null != subnetPrefix && !subnetPrefix.matches(PREFIX_PATTERN))
            {
                throw new IllegalArgumentException("subnetPrefix '" + subnetPrefix + "' must be 10.<0..255>");
            }
            if (null == outputDir)
            {
                outputDir = NetnsConfiguration.outputDir();
            }
            if (null == script)
            {
                script = NetnsScript.locate();
            }

            return this;
        }

        /**
         * A sequence number in letters (a, b, ..., z, ba, bb, ...), so that it cannot run into the digits of the PID
         * before it: names of different JVMs never collide.
         */
        private static String letters(final int sequence)
        {
            final StringBuilder letters = new StringBuilder();
            int remaining = sequence % (26 * 26 * 26);
            do
            {
                letters.insert(0, (char)('a' + remaining % 26));
                remaining /= 26;
            }
            while (remaining > 0);

            return letters.toString();
        }
    }
}
