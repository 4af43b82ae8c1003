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
package io.metaroce.datapath.io;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.epoll.Native;
import io.netty.channel.unix.Errors;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.nio.channels.DatagramChannel;

/**
 * The Netty binding ({@link PrivateApiBinding}): batched datagram system calls ({@code sendmmsg}, {@code recvmmsg},
 * and {@code recvmsg} for a coalesced run) on the file descriptors of NIO datagram channels, through Netty's prebuilt
 * native epoll library, for the batched transport. Its datagram entry points and their {@code NativeDatagramPacket}
 * are package-private, so they are bound here once by reflection and called through exact method and field handles,
 * which allocate nothing.
 * <p>
 * Members bound, of {@code netty-transport-classes-epoll} (package {@code io.netty.channel.epoll}) unless named
 * otherwise:
 * <ul>
 *     <li>{@code Native.sendmmsg(int, boolean, NativeDatagramPacket[], int, int)},
 *         {@code Native.recvmmsg(int, boolean, NativeDatagramPacket[], int, int)} and
 *         {@code Native.recvmsg(int, boolean, NativeDatagramPacket)}: package-private static methods;</li>
 *     <li>{@code NativeDatagramPacketArray}, a package-private class, and its no-argument constructor, whose
 *         instance is the outer instance every packet is made with;</li>
 *     <li>{@code NativeDatagramPacketArray.NativeDatagramPacket(NativeDatagramPacketArray)}, and its private fields
 *         {@code memoryAddress} (long), {@code count}, {@code segmentSize}, {@code senderAddrLen},
 *         {@code senderPort}, {@code senderScopeId}, {@code recipientAddrLen} (int) and {@code senderAddr}
 *         (byte[]);</li>
 *     <li>{@code sun.nio.ch.SelChImpl.getFDVal()} of {@code java.base}, public in a package it does not export, for
 *         a channel's descriptor: it needs {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}, which
 *         {@code --add-opens} includes; the reason it gives without it names {@code --add-opens}, the one flag the
 *         documentation asks for.</li>
 * </ul>
 * The public API used besides: {@code Epoll.ensureAvailability()}, {@code LinuxSocket.newSocket(int)},
 * {@code setIntOpt} and {@code writevAddresses}, and {@code Errors.NativeIoException.expectedErr()}.
 * <p>
 * Checked against Netty {@value #CHECKED_NETTY_VERSION}, the version pinned in the root POM ({@code netty.version}),
 * on JDK 17 to 25 (OpenJDK 17.0.15, Temurin 25.0.3); {@code NativeDatagramsTest} fails the build when the class path
 * carries another Netty or the JDK is outside that range. Where the shape, the export or the native library is
 * missing, {@link #unavailableReason()} says why: the driver prints one line and runs the NIO transport, the
 * supported path.
 * <p>
 * A {@link Batch} is a set of message slots, each naming an array of {@code struct iovec} in native memory, its
 * length, and a segment size: on send a message with a segment size is cut by the kernel into datagrams of that size
 * ({@code UDP_SEGMENT}); on receive {@link Batch#receiveOne} reports the segment size of a run the kernel coalesced
 * ({@code UDP_GRO}), which {@code recvmmsg} does not.
 */
public final class NativeDatagrams
{
    /**
     * Bytes of one {@code struct iovec} (a pointer and a length) on a 64-bit Linux.
     */
    public static final int IOVEC_LENGTH = 16;

    /**
     * Most segments the kernel cuts one message into ({@code UDP_MAX_SEGMENTS}).
     */
    public static final int MAX_SEGMENTS = 64;

    /**
     * The Netty version whose members this binding was checked against: {@code netty.version} of the root POM.
     */
    public static final String CHECKED_NETTY_VERSION = "4.2.18.Final";

    /**
     * This binding, as the driver, the transports and the binding's tests see it.
     */
    public static final PrivateApiBinding BINDING = new Binding();

    private static final int EIO = 5;
    private static final int EINVAL = 22;
    private static final int SOL_UDP = 17;
    private static final int UDP_GRO = 104;

    private static final Class<?> PACKET;
    private static final VarHandle MEMORY_ADDRESS;
    private static final VarHandle COUNT;
    private static final VarHandle SEGMENT_SIZE;
    private static final VarHandle SENDER_ADDRESS;
    private static final VarHandle SENDER_ADDRESS_LENGTH;
    private static final VarHandle SENDER_PORT;
    private static final VarHandle SENDER_SCOPE_ID;
    private static final VarHandle RECIPIENT_ADDRESS_LENGTH;
    private static final MethodHandle SENDMMSG;
    private static final MethodHandle RECVMMSG;
    private static final MethodHandle RECVMSG;
    private static final MethodHandle FD_VALUE;
    private static final Constructor<?> PACKET_CONSTRUCTOR;
    private static final Object PACKET_OUTER;
    private static final String UNAVAILABLE_REASON;

    static
    {
        Class<?> packet = null;
        VarHandle memoryAddress = null;
        VarHandle count = null;
        VarHandle segmentSize = null;
        VarHandle senderAddress = null;
        VarHandle senderAddressLength = null;
        VarHandle senderPort = null;
        VarHandle senderScopeId = null;
        VarHandle recipientAddressLength = null;
        MethodHandle sendmmsg = null;
        MethodHandle recvmmsg = null;
        MethodHandle recvmsg = null;
        MethodHandle fdValue = null;
        Constructor<?> constructor = null;
        Object outer = null;
        String reason = null;
        try
        {
            Epoll.ensureAvailability();
            final Class<?> array = Class.forName("io.netty.channel.epoll.NativeDatagramPacketArray");
            packet = Class.forName("io.netty.channel.epoll.NativeDatagramPacketArray$NativeDatagramPacket");
            final MethodHandles.Lookup packets = MethodHandles.privateLookupIn(packet, MethodHandles.lookup());
            memoryAddress = packets.findVarHandle(packet, "memoryAddress", long.class);
            count = packets.findVarHandle(packet, "count", int.class);
            segmentSize = packets.findVarHandle(packet, "segmentSize", int.class);
            senderAddress = packets.findVarHandle(packet, "senderAddr", byte[].class);
            senderAddressLength = packets.findVarHandle(packet, "senderAddrLen", int.class);
            senderPort = packets.findVarHandle(packet, "senderPort", int.class);
            senderScopeId = packets.findVarHandle(packet, "senderScopeId", int.class);
            recipientAddressLength = packets.findVarHandle(packet, "recipientAddrLen", int.class);

            final MethodHandles.Lookup natives = MethodHandles.privateLookupIn(Native.class, MethodHandles.lookup());
            final Class<?> packetArray = Array.newInstance(packet, 0).getClass();
            final MethodType batch =
                MethodType.methodType(int.class, int.class, boolean.class, packetArray, int.class, int.class);
            final MethodType erasedBatch =
                MethodType.methodType(int.class, int.class, boolean.class, Object[].class, int.class, int.class);
            sendmmsg = natives.findStatic(Native.class, "sendmmsg", batch).asType(erasedBatch);
            recvmmsg = natives.findStatic(Native.class, "recvmmsg", batch).asType(erasedBatch);
            recvmsg = natives.findStatic(Native.class, "recvmsg",
                MethodType.methodType(int.class, int.class, boolean.class, packet))
                .asType(MethodType.methodType(int.class, int.class, boolean.class, Object.class));

            final Class<?> selectableChannel = Class.forName("sun.nio.ch.SelChImpl");
            fdValue = MethodHandles.lookup()
                .findVirtual(selectableChannel, "getFDVal", MethodType.methodType(int.class))
                .asType(MethodType.methodType(int.class, DatagramChannel.class));

            final Constructor<?> arrayConstructor = array.getDeclaredConstructor();
            arrayConstructor.setAccessible(true);
            outer = arrayConstructor.newInstance();
            constructor = packet.getDeclaredConstructor(array);
            constructor.setAccessible(true);
        }
        catch (final Throwable ex)
        {
            reason = ex instanceof IllegalAccessException ?
                // the flag the documentation gives: it includes the export needed here and opens what the NIO
                // transport's allocation-free receive needs
                "the JVM lacks --add-opens java.base/sun.nio.ch=ALL-UNNAMED (" + ex.getMessage() + ")" :
                ex.toString();
        }
        PACKET = packet;
        MEMORY_ADDRESS = memoryAddress;
        COUNT = count;
        SEGMENT_SIZE = segmentSize;
        SENDER_ADDRESS = senderAddress;
        SENDER_ADDRESS_LENGTH = senderAddressLength;
        SENDER_PORT = senderPort;
        SENDER_SCOPE_ID = senderScopeId;
        RECIPIENT_ADDRESS_LENGTH = recipientAddressLength;
        SENDMMSG = sendmmsg;
        RECVMMSG = recvmmsg;
        RECVMSG = recvmsg;
        FD_VALUE = fdValue;
        PACKET_CONSTRUCTOR = constructor;
        PACKET_OUTER = outer;
        UNAVAILABLE_REASON = reason;
    }

    private NativeDatagrams()
    {
    }

    /**
     * Why the batched calls cannot run in this JVM.
     *
     * @return the reason, or null when they can.
     */
    public static String unavailableReason()
    {
        return UNAVAILABLE_REASON;
    }

    /**
     * Whether the batched calls can run in this JVM.
     *
     * @return true when {@link #unavailableReason()} is null.
     */
    public static boolean isAvailable()
    {
        return null == UNAVAILABLE_REASON;
    }

    /**
     * The file descriptor of an open channel; the channel keeps owning it.
     *
     * @param channel an open channel.
     * @return its descriptor.
     */
    public static int fd(final DatagramChannel channel)
    {
        try
        {
            return (int)FD_VALUE.invokeExact(channel);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("cannot read the descriptor of " + channel, ex);
        }
    }

    /**
     * Ask the kernel to coalesce runs of datagrams received on a descriptor ({@code UDP_GRO}); read them with
     * {@link Batch#receiveOne}.
     *
     * @param fd a UDP socket's descriptor, which stays open.
     * @throws IOException when the kernel refuses.
     */
    public static void enableReceiveOffload(final int fd) throws IOException
    {
        setReceiveOffload(LinuxSocket.newSocket(fd), true);
    }

    /**
     * Turn receive coalescing ({@code UDP_GRO}) on or off. Runs the kernel coalesced while it was on stay queued as
     * runs after it is turned off: read with {@link Batch#receiveOne} until the socket is empty before reading it
     * any other way.
     *
     * @param socket a UDP socket, from {@link #socket(int)}.
     * @param on     whether the kernel coalesces from now on.
     * @throws IOException when the kernel refuses.
     */
    public static void setReceiveOffload(final LinuxSocket socket, final boolean on) throws IOException
    {
        socket.setIntOpt(SOL_UDP, UDP_GRO, on ? 1 : 0);
    }

    /**
     * Whether a send failed because the route cannot take a segmented message ({@code EIO}: no checksum offload;
     * {@code EINVAL}: segmentation refused), rather than for an error of the socket or the peer.
     *
     * @param ex what a segmented send threw.
     * @return true when sending the same datagrams one by one would succeed.
     */
    public static boolean isSegmentationRefused(final IOException ex)
    {
        if (ex instanceof Errors.NativeIoException)
        {
            final int errno = -((Errors.NativeIoException)ex).expectedErr();
            return EIO == errno || EINVAL == errno;
        }

        return false;
    }

    /**
     * Send one datagram gathered from iovecs on a connected socket ({@code writev}), which costs less than a
     * {@code sendmmsg} of one message.
     *
     * @param socket       the socket, from {@link #socket(int)}.
     * @param iovecAddress native address of the first {@code struct iovec}.
     * @param iovecCount   iovecs.
     * @return bytes sent (0 when the socket's buffer is full).
     * @throws IOException on a socket error.
     */
    public static long writev(final LinuxSocket socket, final long iovecAddress, final int iovecCount)
        throws IOException
    {
        return socket.writevAddresses(iovecAddress, iovecCount);
    }

    /**
     * A handle on a descriptor the caller keeps owning: never close it.
     *
     * @param fd an open socket's descriptor.
     * @return Netty's view of it.
     */
    public static LinuxSocket socket(final int fd)
    {
        return LinuxSocket.newSocket(fd);
    }

    /**
     * Message slots for the batched calls. Not thread safe.
     */
    public static final class Batch
    {
        private final Object[] packets;

        /**
         * Slots for up to {@code capacity} messages per call.
         *
         * @param capacity messages per call.
         */
        public Batch(final int capacity)
        {
            if (!isAvailable())
            {
                throw new IllegalStateException("no batched datagram calls: " + UNAVAILABLE_REASON);
            }
            packets = (Object[])Array.newInstance(PACKET, capacity);
            try
            {
                for (int i = 0; i < capacity; i++)
                {
                    packets[i] = PACKET_CONSTRUCTOR.newInstance(PACKET_OUTER);
                    RECIPIENT_ADDRESS_LENGTH.set(packets[i], 0);
                }
            }
            catch (final ReflectiveOperationException ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        /**
         * Messages per call.
         *
         * @return the capacity.
         */
        public int capacity()
        {
            return packets.length;
        }

        /**
         * Name a slot's memory: before a send its datagram's iovecs, before a receive the buffer to fill (which a
         * receive overwrites with the bytes received, so it is set again before every receive).
         *
         * @param index        slot.
         * @param iovecAddress native address of the slot's first {@code struct iovec}.
         * @param iovecCount   iovecs of the slot.
         * @param segmentSize  on send, the size the kernel cuts the message into, or 0 for one datagram.
         */
        public void set(final int index, final long iovecAddress, final int iovecCount, final int segmentSize)
        {
            final Object packet = packets[index];
            MEMORY_ADDRESS.set(packet, iovecAddress);
            COUNT.set(packet, iovecCount);
            SEGMENT_SIZE.set(packet, segmentSize);
        }

        /**
         * Send slots {@code offset} to {@code offset + count - 1} on a connected socket.
         *
         * @param fd     the socket.
         * @param ipv6   whether the socket is IPv6.
         * @param offset first slot.
         * @param count  slots.
         * @return messages sent (0 when the socket's buffer is full).
         * @throws IOException on a socket error.
         */
        public int send(final int fd, final boolean ipv6, final int offset, final int count) throws IOException
        {
            try
            {
                return (int)SENDMMSG.invokeExact(fd, ipv6, packets, offset, count);
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        /**
         * Receive up to {@code count} datagrams into slots 0 to {@code count - 1}.
         *
         * @param fd    the socket.
         * @param ipv6  whether the socket is IPv6.
         * @param count slots.
         * @return datagrams received (0 when none waits).
         * @throws IOException on a socket error.
         */
        public int receive(final int fd, final boolean ipv6, final int count) throws IOException
        {
            try
            {
                return (int)RECVMMSG.invokeExact(fd, ipv6, packets, 0, count);
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        /**
         * Receive one datagram, or one run the kernel coalesced, into slot 0, with its segment size.
         *
         * @param fd   the socket.
         * @param ipv6 whether the socket is IPv6.
         * @return bytes received (0 when none waits).
         * @throws IOException on a socket error.
         */
        public int receiveOne(final int fd, final boolean ipv6) throws IOException
        {
            try
            {
                return (int)RECVMSG.invokeExact(fd, ipv6, packets[0]);
            }
            catch (final IOException | RuntimeException | Error ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
        }

        /**
         * Bytes a receive put in a slot.
         *
         * @param index slot.
         * @return the length.
         */
        public int length(final int index)
        {
            return (int)COUNT.get(packets[index]);
        }

        /**
         * The segment size {@link #receiveOne} reported: the length of each datagram of a coalesced run (the last
         * may be shorter), or 0 when it received one datagram.
         *
         * @param index slot.
         * @return the segment size.
         */
        public int segmentSize(final int index)
        {
            return (int)SEGMENT_SIZE.get(packets[index]);
        }

        /**
         * The source's address bytes of a received slot (4 for IPv4, 16 for IPv6): the slot's own array, valid until
         * the next receive.
         *
         * @param index slot.
         * @return the array, of which {@link #sourceAddressLength} bytes are the address.
         */
        public byte[] sourceAddress(final int index)
        {
            return (byte[])SENDER_ADDRESS.get(packets[index]);
        }

        /**
         * Bytes of the source address of a received slot.
         *
         * @param index slot.
         * @return 4 or 16.
         */
        public int sourceAddressLength(final int index)
        {
            return (int)SENDER_ADDRESS_LENGTH.get(packets[index]);
        }

        /**
         * The source port of a received slot.
         *
         * @param index slot.
         * @return the port.
         */
        public int sourcePort(final int index)
        {
            return (int)SENDER_PORT.get(packets[index]);
        }

        /**
         * IPv6 scope id of a received slot's source (0 for a global address or IPv4).
         *
         * @param index of the slot.
         * @return the scope id.
         */
        public int sourceScopeId(final int index)
        {
            return (int)SENDER_SCOPE_ID.get(packets[index]);
        }
    }

    private static final class Binding implements PrivateApiBinding
    {
        public String name()
        {
            return "Netty's batched datagram calls (io.netty.channel.epoll.Native, NativeDatagramPacket)";
        }

        public String checkedAgainst()
        {
            return "Netty " + CHECKED_NETTY_VERSION + " on JDK " + JdkDatagramReceive.OLDEST_CHECKED_JDK + " to " +
                JdkDatagramReceive.NEWEST_CHECKED_JDK;
        }

        public String supportedPath()
        {
            return "the NIO transport, a system call per datagram";
        }

        public String unavailableReason()
        {
            return UNAVAILABLE_REASON;
        }

        public String toString()
        {
            return name();
        }
    }
}
