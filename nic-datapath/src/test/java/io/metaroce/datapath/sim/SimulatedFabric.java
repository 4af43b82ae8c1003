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
package io.metaroce.datapath.sim;

import io.metaroce.datapath.io.LossGenerator;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A deterministic network of P planes between simulated nodes, on a {@link VirtualClock}. Each node attaches through
 * a {@link SimulatedTransport}; every datagram travels a <b>route</b> chosen by (source node, destination node, plane,
 * entropy value), the way ECMP hashes a UDP source port onto one of several physical routes.
 * <ul>
 *     <li><b>Routes</b> have a propagation delay (the base delay plus a per-route extra in [0, routeSkew], fixed by
 *     the seed), per-packet jitter in [0, jitter] that never reorders a route (routes are FIFO), random loss, bursts of
 *     loss (a Gilbert-Elliott chain per route) and duplication.</li>
 *     <li><b>Ingress queues</b>: each node has one per plane, a FIFO served at the ingress rate with a bounded
 *     capacity (tail drop), where incast congests. Each queue's depth, its high-water mark since the last reset,
 *     the bytes it served and its tail drops can be read at any time ({@link #queuedBytes(int, int)}).</li>
 *     <li><b>Egress</b> (optional, {@link Context#egressRateBitsPerSecond(long)}): each node's port on each plane
 *     serializes what the node sends at that rate, so a burst leaves a node no faster than its link; the port's
 *     queue is unbounded (a NIC holds back its sender rather than dropping).</li>
 *     <li><b>Faults</b>: scheduled failures and recoveries of single routes and whole planes. A packet is lost when its
 *     route or plane is down when it is sent or when it reaches the ingress queue.</li>
 *     <li><b>Memory</b>: datagrams live in a fixed pool of slots; a send that finds no free slot is refused as if the
 *     socket buffer were full. Each node's inbound queue (its socket buffer) is bounded too.</li>
 * </ul>
 * Every random choice comes from one generator seeded at construction, and events at the same instant are ordered by
 * their scheduling sequence, so a run replays exactly from its seed.
 * <p>
 * Single-threaded. Allocates when nodes, routes and faults are first created, never per datagram.
 */
public final class SimulatedFabric
{
    /**
     * Drop reason: random loss.
     */
    public static final int DROP_RANDOM_LOSS = 0;

    /**
     * Drop reason: loss during a burst.
     */
    public static final int DROP_BURST_LOSS = 1;

    /**
     * Drop reason: the route was down.
     */
    public static final int DROP_ROUTE_DOWN = 2;

    /**
     * Drop reason: the plane was down.
     */
    public static final int DROP_PLANE_DOWN = 3;

    /**
     * Drop reason: the destination's ingress queue was full (tail drop).
     */
    public static final int DROP_QUEUE_FULL = 4;

    /**
     * Drop reason: no free packet slot (refused at send).
     */
    public static final int DROP_POOL_EXHAUSTED = 5;

    /**
     * Drop reason: the destination node's inbound queue was full.
     */
    public static final int DROP_INBOUND_FULL = 6;

    /**
     * Drop reason: the injected loss generator selected it.
     */
    public static final int DROP_INJECTED = 7;

    /**
     * Number of drop reasons.
     */
    public static final int DROP_REASONS = 8;

    /**
     * The entropy value a node's control port sends with: a UDP 5-tuple of its own, so it has a route of its own,
     * which route faults scheduled per entropy value do not touch (a plane fault does).
     */
    public static final int CONTROL_ENTROPY = 2047;

    private static final int STAGE_ROUTE = 1;
    private static final int STAGE_QUEUE = 2;
    private static final double BITS_PER_BYTE_NS = 8e9;

    private final Context ctx;
    private final VirtualClock clock;
    private final SplittableRandom random;
    private final long seed;
    private final int planeCount;
    private final int slotLength;
    private final UnsafeBuffer packets;
    private final int[] packetLength;
    private final int[] packetSrc;
    private final int[] packetDst;
    private final int[] packetPlane;
    private final boolean[] packetFromControl;
    private final int[] packetStage;
    private final Route[] packetRoute;
    private final int[] freeSlots;
    private int freeCount;
    private int slotsInUseHighWater;

    private final long[] heapTime;
    private final long[] heapSeq;
    private final int[] heapSlot;
    private int heapSize;
    private long sequence;

    private final ArrayList<SimulatedTransport> nodes = new ArrayList<>();
    private int[][] inbound = new int[0][];
    private int[] inboundHead = new int[0];
    private int[] inboundCount = new int[0];
    private long[] queueBusyUntilNs = new long[0];
    private long[] egressBusyUntilNs = new long[0];
    private long[] queueBytes = new long[0];
    private long[] queueHighWaterBytes = new long[0];
    private long[] queueServedBytes = new long[0];
    private long[] queueTailDrops = new long[0];
    private boolean[] packetQueued;
    private long maxQueueBytes;

    private final Long2ObjectHashMap<Route> routes = new Long2ObjectHashMap<>();
    private final boolean[] planeDown;
    private final long[] planeRateBitsPerSecond;
    private final ArrayList<Fault> faults = new ArrayList<>();
    private int nextFault;

    private final long[] drops = new long[DROP_REASONS];
    private long sent;
    private long delivered;
    private long duplicated;
    private LossGenerator lossGenerator;
    private PacketObserver[] observers = new PacketObserver[0];

    /**
     * Build a fabric.
     *
     * @param ctx   its settings.
     * @param clock the virtual clock it shares with the engines.
     */
    public SimulatedFabric(final Context ctx, final VirtualClock clock)
    {
        ctx.conclude();
        this.ctx = ctx;
        this.clock = clock;
        this.seed = ctx.seed;
        this.random = new SplittableRandom(ctx.seed);
        this.planeCount = ctx.planeCount;
        this.slotLength = ctx.slotLength;
        final int slots = ctx.slotCount;
        this.packets = new UnsafeBuffer(new byte[slots * slotLength]);
        this.packetLength = new int[slots];
        this.packetSrc = new int[slots];
        this.packetDst = new int[slots];
        this.packetPlane = new int[slots];
        this.packetFromControl = new boolean[slots];
        this.packetStage = new int[slots];
        this.packetRoute = new Route[slots];
        this.packetQueued = new boolean[slots];
        this.freeSlots = new int[slots];
        for (int i = 0; i < slots; i++)
        {
            freeSlots[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.heapTime = new long[slots];
        this.heapSeq = new long[slots];
        this.heapSlot = new int[slots];
        this.planeDown = new boolean[planeCount];
        this.planeRateBitsPerSecond = new long[planeCount];
    }

    /**
     * Attach a new node.
     *
     * @param entropyCount send sockets (entropy values) per plane and destination of the node's transport.
     * @return the node's transport; its {@link SimulatedTransport#node()} is the node id.
     */
    public SimulatedTransport attach(final int entropyCount)
    {
        final int node = nodes.size();
        final SimulatedTransport transport = new SimulatedTransport(this, node, planeCount, entropyCount);
        nodes.add(transport);

        inbound = Arrays.copyOf(inbound, node + 1);
        inbound[node] = new int[ctx.inboundCapacity];
        inboundHead = Arrays.copyOf(inboundHead, node + 1);
        inboundCount = Arrays.copyOf(inboundCount, node + 1);
        final int queues = (node + 1) * planeCount;
        queueBusyUntilNs = Arrays.copyOf(queueBusyUntilNs, queues);
        egressBusyUntilNs = Arrays.copyOf(egressBusyUntilNs, queues);
        queueBytes = Arrays.copyOf(queueBytes, queues);
        queueHighWaterBytes = Arrays.copyOf(queueHighWaterBytes, queues);
        queueServedBytes = Arrays.copyOf(queueServedBytes, queues);
        queueTailDrops = Arrays.copyOf(queueTailDrops, queues);

        return transport;
    }

    /**
     * Number of planes.
     *
     * @return P.
     */
    public int planeCount()
    {
        return planeCount;
    }

    /**
     * The clock the fabric runs on.
     *
     * @return the virtual clock.
     */
    public VirtualClock clock()
    {
        return clock;
    }

    /**
     * Install a drop stage applied to every datagram at send; null removes it.
     *
     * @param lossGenerator the stage.
     */
    public void lossGenerator(final LossGenerator lossGenerator)
    {
        this.lossGenerator = lossGenerator;
    }

    /**
     * Add an observer of every datagram; observers are called in the order they were added.
     *
     * @param observer the observer.
     */
    public void addObserver(final PacketObserver observer)
    {
        final PacketObserver[] grown = Arrays.copyOf(observers, observers.length + 1);
        grown[observers.length] = Objects.requireNonNull(observer, "observer");
        observers = grown;
    }

    /**
     * Set the service rate of every node's ingress queue on one plane, from now on, overriding
     * {@link Context#ingressRateBitsPerSecond(long)} for that plane: a plane slower than the others (a rate-limited
     * link). The bytes already queued drain at the rate in force when they arrived.
     *
     * @param plane             plane.
     * @param rateBitsPerSecond bits per second, or 0 to return to the fabric-wide ingress rate.
     * @throws IllegalArgumentException when the plane does not exist or the rate is negative.
     */
    public void planeRateBitsPerSecond(final int plane, final long rateBitsPerSecond)
    {
        if (plane < 0 || plane >= planeCount || rateBitsPerSecond < 0)
        {
            throw new IllegalArgumentException("plane " + plane + " rate " + rateBitsPerSecond);
        }
        planeRateBitsPerSecond[plane] = rateBitsPerSecond;
    }

    /**
     * Schedule a failure of one route, and its recovery.
     *
     * @param srcNode   sending node.
     * @param dstNode   destination node.
     * @param plane     plane.
     * @param entropy   entropy value.
     * @param downAtNs  when it fails.
     * @param upAtNs    when it recovers, or {@link Long#MAX_VALUE} for never.
     */
    public void scheduleRouteFailure(
        final int srcNode,
        final int dstNode,
        final int plane,
        final int entropy,
        final long downAtNs,
        final long upAtNs)
    {
        addFault(new Fault(downAtNs, srcNode, dstNode, plane, entropy, true));
        if (Long.MAX_VALUE != upAtNs)
        {
            addFault(new Fault(upAtNs, srcNode, dstNode, plane, entropy, false));
        }
    }

    /**
     * Schedule a failure of a whole plane (every route of it, both directions), and its recovery.
     *
     * @param plane    plane.
     * @param downAtNs when it fails.
     * @param upAtNs   when it recovers, or {@link Long#MAX_VALUE} for never.
     */
    public void schedulePlaneFailure(final int plane, final long downAtNs, final long upAtNs)
    {
        addFault(new Fault(downAtNs, -1, -1, plane, -1, true));
        if (Long.MAX_VALUE != upAtNs)
        {
            addFault(new Fault(upAtNs, -1, -1, plane, -1, false));
        }
    }

    /**
     * Is a route up now (its plane included)?
     *
     * @param srcNode sending node.
     * @param dstNode destination node.
     * @param plane   plane.
     * @param entropy entropy value.
     * @return true when a datagram sent on it now could arrive.
     */
    public boolean isRouteUp(final int srcNode, final int dstNode, final int plane, final int entropy)
    {
        applyFaults(clock.nanoTime());
        return !planeDown[plane] && !route(srcNode, dstNode, plane, entropy).down;
    }

    /**
     * Move the datagrams that are due along: arrivals at ingress queues and deliveries to nodes' inbound queues; apply
     * the faults that are due.
     *
     * @return datagrams delivered to nodes.
     */
    public int deliverDue()
    {
        final long now = clock.nanoTime();
        applyFaults(now);
        int count = 0;
        while (heapSize > 0 && heapTime[0] <= now)
        {
            final long time = heapTime[0];
            final int slot = popHeap();
            if (STAGE_ROUTE == packetStage[slot])
            {
                arriveAtQueue(slot, time);
            }
            else
            {
                count += deliver(slot);
            }
        }

        return count;
    }

    /**
     * Earliest time {@link #deliverDue()} has work.
     *
     * @return the time, or {@link Long#MAX_VALUE} when nothing is in flight and no fault is pending.
     */
    public long nextEventNs()
    {
        long next = heapSize > 0 ? heapTime[0] : Long.MAX_VALUE;
        if (nextFault < faults.size())
        {
            next = Math.min(next, faults.get(nextFault).timeNs);
        }
        return next;
    }

    /**
     * Datagrams dropped for a reason.
     *
     * @param reason a {@code DROP_} code.
     * @return the count.
     */
    public long drops(final int reason)
    {
        return drops[reason];
    }

    /**
     * Datagrams dropped for any reason.
     *
     * @return the count.
     */
    public long drops()
    {
        long total = 0;
        for (final long d : drops)
        {
            total += d;
        }
        return total;
    }

    /**
     * Datagrams handed to the fabric.
     *
     * @return the count.
     */
    public long sent()
    {
        return sent;
    }

    /**
     * Datagrams delivered to nodes' inbound queues, duplicates included.
     *
     * @return the count.
     */
    public long delivered()
    {
        return delivered;
    }

    /**
     * Duplicates the fabric created.
     *
     * @return the count.
     */
    public long duplicated()
    {
        return duplicated;
    }

    /**
     * Largest backlog any ingress queue reached.
     *
     * @return bytes.
     */
    public long maxQueueBytes()
    {
        return maxQueueBytes;
    }

    /**
     * Bytes in a node's ingress queue on a plane now: datagrams that arrived and whose serialization at the ingress
     * rate has not ended (the one being served included). Always 0 on a plane without an ingress rate.
     *
     * @param node  node id.
     * @param plane plane.
     * @return bytes.
     */
    public long queuedBytes(final int node, final int plane)
    {
        return queueBytes[node * planeCount + plane];
    }

    /**
     * Largest depth of a node's ingress queue on a plane since it was last reset ({@link #resetQueueHighWater}):
     * exact, as it is taken at every arrival.
     *
     * @param node  node id.
     * @param plane plane.
     * @return bytes.
     */
    public long queueHighWaterBytes(final int node, final int plane)
    {
        return queueHighWaterBytes[node * planeCount + plane];
    }

    /**
     * Start a new high-water mark for every plane of a node's ingress queues, at their depth now.
     *
     * @param node node id.
     */
    public void resetQueueHighWater(final int node)
    {
        for (int plane = 0; plane < planeCount; plane++)
        {
            final int queue = node * planeCount + plane;
            queueHighWaterBytes[queue] = queueBytes[queue];
        }
    }

    /**
     * Bytes a node's ingress queue on a plane has finished serving (handed on towards the node).
     *
     * @param node  node id.
     * @param plane plane.
     * @return bytes.
     */
    public long queueServedBytes(final int node, final int plane)
    {
        return queueServedBytes[node * planeCount + plane];
    }

    /**
     * Datagrams a node's ingress queue on a plane dropped because it was full ({@link #DROP_QUEUE_FULL}).
     *
     * @param node  node id.
     * @param plane plane.
     * @return the count.
     */
    public long queueTailDrops(final int node, final int plane)
    {
        return queueTailDrops[node * planeCount + plane];
    }

    /**
     * Datagrams waiting in a node's inbound queue (its socket buffer) for its transport to poll them: a driver of the
     * simulation can skip an engine that has none, no timer due and no new data.
     *
     * @param node node id.
     * @return the count.
     */
    public int inboundPending(final int node)
    {
        return inboundCount[node];
    }

    /**
     * Most packet slots in use at once.
     *
     * @return the high-water mark.
     */
    public int slotsInUseHighWater()
    {
        return slotsInUseHighWater;
    }

    /**
     * Size of the packet pool.
     *
     * @return the number of slots.
     */
    public int slotCount()
    {
        return freeSlots.length;
    }

    /**
     * Packet slots in use now.
     *
     * @return the count.
     */
    public int slotsInUse()
    {
        return freeSlots.length - freeCount;
    }

    int send(
        final int srcNode,
        final int dstNode,
        final int plane,
        final int entropy,
        final boolean fromControl,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        sent++;
        final int length = headerLength + payloadLength;
        if (length > slotLength || dstNode < 0 || dstNode >= nodes.size())
        {
            return PacketTransport.SEND_ERROR;
        }

        final int slot = allocate();
        if (slot < 0)
        {
            drop(srcNode, dstNode, plane, DROP_POOL_EXHAUSTED);
            return PacketTransport.BACK_PRESSURED;
        }

        final int offset = slot * slotLength;
        packets.putBytes(offset, header, headerOffset, headerLength);
        if (payloadLength > 0)
        {
            packets.putBytes(offset + headerLength, payload, payloadOffset, payloadLength);
        }
        packetLength[slot] = length;
        packetSrc[slot] = srcNode;
        packetDst[slot] = dstNode;
        packetPlane[slot] = plane;
        packetFromControl[slot] = fromControl;

        final long now = clock.nanoTime();
        applyFaults(now);
        for (final PacketObserver observer : observers)
        {
            observer.onSend(now, srcNode, dstNode, plane, entropy, packets, offset, length);
        }

        final long departure = egress(srcNode, plane, length, now);
        final int verdict = routeVerdict(slot, srcNode, dstNode, plane, entropy, offset, length);
        if (verdict >= 0)
        {
            release(slot);
            drop(srcNode, dstNode, plane, verdict);
            return PacketTransport.SENT;
        }

        final Route route = packetRoute[slot];
        final long jitter = ctx.jitterNs > 0 ? random.nextLong(ctx.jitterNs + 1) : 0;
        final long arrival = Math.max(route.lastArrivalNs, departure + route.delayNs + jitter);
        route.lastArrivalNs = arrival;
        packetStage[slot] = STAGE_ROUTE;
        pushHeap(slot, arrival);

        if (ctx.duplicateRate > 0 && random.nextDouble() < ctx.duplicateRate)
        {
            final int copy = allocate();
            if (copy >= 0)
            {
                packets.putBytes(copy * slotLength, packets, offset, length);
                packetLength[copy] = length;
                packetSrc[copy] = srcNode;
                packetDst[copy] = dstNode;
                packetPlane[copy] = plane;
                packetFromControl[copy] = fromControl;
                packetRoute[copy] = route;
                packetStage[copy] = STAGE_ROUTE;
                pushHeap(copy, arrival);
                duplicated++;
            }
        }

        return PacketTransport.SENT;
    }

    /**
     * When a datagram sent now has left the node's port on a plane: now without an egress rate, otherwise after the
     * datagrams the port holds and its own serialization.
     */
    private long egress(final int node, final int plane, final int length, final long now)
    {
        final long rate = ctx.egressRateBitsPerSecond;
        if (0 == rate)
        {
            return now;
        }

        final int port = node * planeCount + plane;
        final long departure =
            Math.max(egressBusyUntilNs[port], now) + (long)Math.ceil(length * BITS_PER_BYTE_NS / rate);
        egressBusyUntilNs[port] = departure;
        return departure;
    }

    int pollInbound(final int node)
    {
        if (0 == inboundCount[node])
        {
            return -1;
        }

        final int[] queue = inbound[node];
        final int slot = queue[inboundHead[node]];
        inboundHead[node] = inboundHead[node] + 1 == queue.length ? 0 : inboundHead[node] + 1;
        inboundCount[node]--;

        return slot;
    }

    UnsafeBuffer packets()
    {
        return packets;
    }

    int slotOffset(final int slot)
    {
        return slot * slotLength;
    }

    int length(final int slot)
    {
        return packetLength[slot];
    }

    int sourceNode(final int slot)
    {
        return packetSrc[slot];
    }

    int plane(final int slot)
    {
        return packetPlane[slot];
    }

    boolean isFromControl(final int slot)
    {
        return packetFromControl[slot];
    }

    void release(final int slot)
    {
        packetRoute[slot] = null;
        packetQueued[slot] = false;
        freeSlots[freeCount++] = slot;
    }

    private int routeVerdict(
        final int slot,
        final int srcNode,
        final int dstNode,
        final int plane,
        final int entropy,
        final int offset,
        final int length)
    {
        if (null != lossGenerator && lossGenerator.shouldDrop(packets, offset, length, plane))
        {
            return DROP_INJECTED;
        }

        final Route route = route(srcNode, dstNode, plane, entropy);
        packetRoute[slot] = route;
        if (planeDown[plane])
        {
            return DROP_PLANE_DOWN;
        }
        if (route.down)
        {
            return DROP_ROUTE_DOWN;
        }

        if (ctx.burstEnterRate > 0)
        {
            route.inBurst = route.inBurst ?
                random.nextDouble() >= ctx.burstExitRate : random.nextDouble() < ctx.burstEnterRate;
            if (route.inBurst && random.nextDouble() < ctx.burstLossRate)
            {
                return DROP_BURST_LOSS;
            }
        }
        if (ctx.lossRate > 0 && random.nextDouble() < ctx.lossRate)
        {
            return DROP_RANDOM_LOSS;
        }

        return -1;
    }

    private void arriveAtQueue(final int slot, final long timeNs)
    {
        final int plane = packetPlane[slot];
        final Route route = packetRoute[slot];
        if (planeDown[plane] || route.down)
        {
            final int reason = planeDown[plane] ? DROP_PLANE_DOWN : DROP_ROUTE_DOWN;
            drop(packetSrc[slot], packetDst[slot], plane, reason);
            release(slot);
            return;
        }

        final long planeRate = planeRateBitsPerSecond[plane];
        final long rate = 0 != planeRate ? planeRate : ctx.ingressRateBitsPerSecond;
        if (0 == rate)
        {
            packetStage[slot] = STAGE_QUEUE;
            pushHeap(slot, timeNs);
            return;
        }

        final int queue = packetDst[slot] * planeCount + plane;
        final long busyUntil = queueBusyUntilNs[queue];
        final long backlog = busyUntil > timeNs ? (long)((busyUntil - timeNs) * rate / BITS_PER_BYTE_NS) : 0;
        final int length = packetLength[slot];
        if (backlog + length > ctx.ingressQueueBytes)
        {
            queueTailDrops[queue]++;
            drop(packetSrc[slot], packetDst[slot], plane, DROP_QUEUE_FULL);
            release(slot);
            return;
        }

        maxQueueBytes = Math.max(maxQueueBytes, backlog + length);
        final long depth = queueBytes[queue] + length;
        queueBytes[queue] = depth;
        queueHighWaterBytes[queue] = Math.max(queueHighWaterBytes[queue], depth);
        packetQueued[slot] = true;
        final long departure = Math.max(busyUntil, timeNs) + (long)Math.ceil(length * BITS_PER_BYTE_NS / rate);
        queueBusyUntilNs[queue] = departure;
        packetStage[slot] = STAGE_QUEUE;
        pushHeap(slot, departure);
    }

    private int deliver(final int slot)
    {
        final int node = packetDst[slot];
        if (packetQueued[slot])
        {
            final int served = node * planeCount + packetPlane[slot];
            queueBytes[served] -= packetLength[slot];
            queueServedBytes[served] += packetLength[slot];
            packetQueued[slot] = false;
        }
        final int[] queue = inbound[node];
        if (inboundCount[node] == queue.length)
        {
            drop(packetSrc[slot], node, packetPlane[slot], DROP_INBOUND_FULL);
            release(slot);
            return 0;
        }

        queue[(inboundHead[node] + inboundCount[node]) % queue.length] = slot;
        inboundCount[node]++;
        delivered++;
        for (final PacketObserver observer : observers)
        {
            observer.onDeliver(
                clock.nanoTime(), packetSrc[slot], node, packetPlane[slot], packets, slot * slotLength,
                packetLength[slot]);
        }

        return 1;
    }

    private void drop(final int srcNode, final int dstNode, final int plane, final int reason)
    {
        drops[reason]++;
        for (final PacketObserver observer : observers)
        {
            observer.onDrop(clock.nanoTime(), srcNode, dstNode, plane, reason);
        }
    }

    private int allocate()
    {
        if (0 == freeCount)
        {
            return -1;
        }

        final int slot = freeSlots[--freeCount];
        slotsInUseHighWater = Math.max(slotsInUseHighWater, freeSlots.length - freeCount);
        return slot;
    }

    private Route route(final int srcNode, final int dstNode, final int plane, final int entropy)
    {
        final long key = ((long)srcNode << 40) | ((long)dstNode << 20) | ((long)plane << 11) | entropy;
        Route route = routes.get(key);
        if (null == route)
        {
            final long extra = ctx.routeSkewNs > 0 ?
                Math.floorMod(new SplittableRandom(seed ^ (key * 0x9E3779B97F4A7C15L)).nextLong(),
                ctx.routeSkewNs + 1) : 0;
            route = new Route(ctx.propagationDelayNs + extra);
            routes.put(key, route);
        }
        return route;
    }

    private void addFault(final Fault fault)
    {
        int index = faults.size();
        while (index > nextFault && faults.get(index - 1).timeNs > fault.timeNs)
        {
            index--;
        }
        faults.add(index, fault);
    }

    private void applyFaults(final long now)
    {
        while (nextFault < faults.size() && faults.get(nextFault).timeNs <= now)
        {
            final Fault fault = faults.get(nextFault++);
            if (fault.srcNode < 0)
            {
                planeDown[fault.plane] = fault.down;
            }
            else
            {
                route(fault.srcNode, fault.dstNode, fault.plane, fault.entropy).down = fault.down;
            }
        }
    }

    private void pushHeap(final int slot, final long timeNs)
    {
        int i = heapSize++;
        final long seq = sequence++;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (heapTime[parent] < timeNs || (heapTime[parent] == timeNs && heapSeq[parent] < seq))
            {
                break;
            }
            heapTime[i] = heapTime[parent];
            heapSeq[i] = heapSeq[parent];
            heapSlot[i] = heapSlot[parent];
            i = parent;
        }
        heapTime[i] = timeNs;
        heapSeq[i] = seq;
        heapSlot[i] = slot;
    }

    private int popHeap()
    {
        final int top = heapSlot[0];
        final int last = --heapSize;
        final long time = heapTime[last];
        final long seq = heapSeq[last];
        final int slot = heapSlot[last];
        int i = 0;
        while (true)
        {
            int child = (i << 1) + 1;
            if (child >= last)
            {
                break;
            }
            if (child + 1 < last && (heapTime[child + 1] < heapTime[child] ||
                (heapTime[child + 1] == heapTime[child] && heapSeq[child + 1] < heapSeq[child])))
            {
                child++;
            }
            if (time < heapTime[child] || (time == heapTime[child] && seq < heapSeq[child]))
            {
                break;
            }
            heapTime[i] = heapTime[child];
            heapSeq[i] = heapSeq[child];
            heapSlot[i] = heapSlot[child];
            i = child;
        }
        heapTime[i] = time;
        heapSeq[i] = seq;
        heapSlot[i] = slot;

        return top;
    }

    private static final class Route
    {
        final long delayNs;
        long lastArrivalNs;
        boolean down;
        boolean inBurst;

        Route(final long delayNs)
        {
            this.delayNs = delayNs;
        }
    }

    private static final class Fault
    {
        final long timeNs;
        final int srcNode;
        final int dstNode;
        final int plane;
        final int entropy;
        final boolean down;

        Fault(final long timeNs, final int srcNode, final int dstNode, final int plane, final int entropy,
            final boolean down)
        {
            this.timeNs = timeNs;
            this.srcNode = srcNode;
            this.dstNode = dstNode;
            this.plane = plane;
            this.entropy = entropy;
            this.down = down;
        }
    }

    /**
     * Settings of a {@link SimulatedFabric}; everything random derives from {@link #seed(long)}.
     */
    public static final class Context
    {
        /**
         * One-way propagation delay of every route unless set.
         */
        public static final long DEFAULT_PROPAGATION_DELAY_NS = 5_000;

        private long seed;
        private int planeCount = 1;
        private int slotCount = 8192;
        private int slotLength = 2048;
        private int inboundCapacity = 4096;
        private long propagationDelayNs = DEFAULT_PROPAGATION_DELAY_NS;
        private long routeSkewNs;
        private long jitterNs;
        private double lossRate;
        private double duplicateRate;
        private double burstEnterRate;
        private double burstExitRate = 0.5;
        private double burstLossRate = 0.5;
        private long ingressRateBitsPerSecond;
        private int ingressQueueBytes = 1024 * 1024;
        private long egressRateBitsPerSecond;

        /**
         * Seed of every random choice.
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
         * Number of planes, 1 to 255.
         *
         * @param planeCount P.
         * @return this for a fluent API.
         */
        public Context planeCount(final int planeCount)
        {
            this.planeCount = planeCount;
            return this;
        }

        /**
         * Size of the packet pool: datagrams in flight at once.
         *
         * @param slotCount the number of slots.
         * @return this for a fluent API.
         */
        public Context slotCount(final int slotCount)
        {
            this.slotCount = slotCount;
            return this;
        }

        /**
         * Largest datagram.
         *
         * @param slotLength bytes per slot.
         * @return this for a fluent API.
         */
        public Context slotLength(final int slotLength)
        {
            this.slotLength = slotLength;
            return this;
        }

        /**
         * Capacity of each node's inbound queue (its socket buffer), in datagrams.
         *
         * @param inboundCapacity datagrams.
         * @return this for a fluent API.
         */
        public Context inboundCapacity(final int inboundCapacity)
        {
            this.inboundCapacity = inboundCapacity;
            return this;
        }

        /**
         * Base one-way propagation delay of every route.
         *
         * @param propagationDelayNs nanoseconds.
         * @return this for a fluent API.
         */
        public Context propagationDelayNs(final long propagationDelayNs)
        {
            this.propagationDelayNs = propagationDelayNs;
            return this;
        }

        /**
         * Largest extra delay of a route over the base, drawn once per route from the seed: the cross-path skew.
         *
         * @param routeSkewNs nanoseconds.
         * @return this for a fluent API.
         */
        public Context routeSkewNs(final long routeSkewNs)
        {
            this.routeSkewNs = routeSkewNs;
            return this;
        }

        /**
         * Largest per-packet jitter (routes stay FIFO).
         *
         * @param jitterNs nanoseconds.
         * @return this for a fluent API.
         */
        public Context jitterNs(final long jitterNs)
        {
            this.jitterNs = jitterNs;
            return this;
        }

        /**
         * Probability that a datagram is lost.
         *
         * @param lossRate in [0, 1).
         * @return this for a fluent API.
         */
        public Context lossRate(final double lossRate)
        {
            this.lossRate = lossRate;
            return this;
        }

        /**
         * Probability that a datagram is delivered twice.
         *
         * @param duplicateRate in [0, 1).
         * @return this for a fluent API.
         */
        public Context duplicateRate(final double duplicateRate)
        {
            this.duplicateRate = duplicateRate;
            return this;
        }

        /**
         * Bursts of loss: per datagram, the probability a route enters a burst, leaves it, and loses a datagram
         * while in it. An enter rate of 0 disables bursts.
         *
         * @param enterRate per-datagram probability of entering a burst.
         * @param exitRate  per-datagram probability of leaving it.
         * @param lossRate  loss probability inside a burst.
         * @return this for a fluent API.
         */
        public Context bursts(final double enterRate, final double exitRate, final double lossRate)
        {
            this.burstEnterRate = enterRate;
            this.burstExitRate = exitRate;
            this.burstLossRate = lossRate;
            return this;
        }

        /**
         * Service rate of every node's ingress queue per plane; 0 for no limit (and no queue).
         *
         * @param ingressRateBitsPerSecond bits per second.
         * @return this for a fluent API.
         */
        public Context ingressRateBitsPerSecond(final long ingressRateBitsPerSecond)
        {
            this.ingressRateBitsPerSecond = ingressRateBitsPerSecond;
            return this;
        }

        /**
         * Rate at which every node's port on each plane sends; 0 for no limit (a datagram leaves when it is sent).
         *
         * @param egressRateBitsPerSecond bits per second.
         * @return this for a fluent API.
         */
        public Context egressRateBitsPerSecond(final long egressRateBitsPerSecond)
        {
            this.egressRateBitsPerSecond = egressRateBitsPerSecond;
            return this;
        }

        /**
         * Capacity of every ingress queue (tail drop beyond it).
         *
         * @param ingressQueueBytes bytes.
         * @return this for a fluent API.
         */
        public Context ingressQueueBytes(final int ingressQueueBytes)
        {
            this.ingressQueueBytes = ingressQueueBytes;
            return this;
        }

        /**
         * Validate the settings.
         *
         * @throws IllegalArgumentException naming the setting that is wrong.
         */
        public void conclude()
        {
            check(planeCount >= 1 && planeCount <= 255, "planeCount", planeCount);
            check(slotCount >= 1, "slotCount", slotCount);
            check(slotLength >= 64, "slotLength", slotLength);
            check(inboundCapacity >= 1, "inboundCapacity", inboundCapacity);
            check(propagationDelayNs >= 0, "propagationDelayNs", propagationDelayNs);
            check(routeSkewNs >= 0, "routeSkewNs", routeSkewNs);
            check(jitterNs >= 0, "jitterNs", jitterNs);
            check(lossRate >= 0 && lossRate < 1, "lossRate", lossRate);
            check(duplicateRate >= 0 && duplicateRate < 1, "duplicateRate", duplicateRate);
            check(burstEnterRate >= 0 && burstEnterRate <= 1, "burstEnterRate", burstEnterRate);
            check(burstExitRate > 0 && burstExitRate <= 1, "burstExitRate", burstExitRate);
            check(burstLossRate >= 0 && burstLossRate <= 1, "burstLossRate", burstLossRate);
            check(ingressRateBitsPerSecond >= 0, "ingressRateBitsPerSecond", ingressRateBitsPerSecond);
            check(egressRateBitsPerSecond >= 0, "egressRateBitsPerSecond", egressRateBitsPerSecond);
            check(ingressQueueBytes >= slotLength, "ingressQueueBytes", ingressQueueBytes);
        }

        private static void check(final boolean valid, final String name, final Object value)
        {
            if (!valid)
            {
                throw new IllegalArgumentException(name + " is invalid: " + value);
            }
        }
    }
}
