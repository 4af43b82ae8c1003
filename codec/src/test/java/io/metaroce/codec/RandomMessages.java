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
package io.metaroce.codec;

import org.agrona.MutableDirectBuffer;
import uk.co.real_logic.sbe.PrimitiveType;
import uk.co.real_logic.sbe.ir.Ir;
import uk.co.real_logic.sbe.ir.Signal;
import uk.co.real_logic.sbe.ir.Token;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Encodes a message of any template of a schema with random field values, walking SBE's IR and calling the
 * generated encoders by reflection, and records every value it wrote; then reads the message back through the
 * decoder a validating reader wrapped and lists every field whose decoded value differs.
 * <p>
 * Values are random but valid: enum fields take defined values, groups and var-data stay within the specification's
 * limits, and a DATA payload is a run of whole log frames that agrees with its placement tuple.
 */
final class RandomMessages
{
    private static final int MAX_GROUP_ENTRIES = 4;
    private static final int MAX_VAR_DATA = 48;

    private final Ir ir;
    private final String codecPackage;
    private final Random random;
    private final Map<String, Object> written = new LinkedHashMap<>();

    RandomMessages(final Ir ir, final String codecPackage, final long seed)
    {
        this.ir = ir;
        this.codecPackage = codecPackage;
        this.random = new Random(seed);
    }

    List<Integer> templateIds()
    {
        final List<Integer> ids = new ArrayList<>();
        ir.messages().forEach((tokens) -> ids.add(tokens.get(0).id()));
        return ids;
    }

    /**
     * Encode a random message of a template at an offset.
     *
     * @return the encoded length, header included.
     */
    int encode(final int templateId, final MutableDirectBuffer buffer, final int offset) throws Exception
    {
        written.clear();
        final List<Token> tokens = ir.getMessage(templateId);
        final String name = tokens.get(0).name();
        final Object encoder = type(name + "Encoder").getConstructor().newInstance();
        final Object headerEncoder = type("MessageHeaderEncoder").getConstructor().newInstance();
        invoke(encoder, "wrapAndApplyHeader", buffer, offset, headerEncoder);

        encodeFields(encoder, tokens.subList(1, tokens.size() - 1), "", name);

        if ("Data".equals(name))
        {
            writeDataPayload(encoder);
        }

        return 8 + (int)invoke(encoder, "encodedLength");
    }

    /**
     * Compare every value the last {@link #encode} wrote with what a decoder reads.
     *
     * @return a description of each difference; empty when the round trip is exact.
     */
    List<String> differences(final int templateId, final Object decoder) throws Exception
    {
        final Map<String, Object> read = readAll(ir, templateId, decoder);
        final List<String> differences = new ArrayList<>();
        read.keySet().removeIf((key) -> key.endsWith(".blockLength"));
        for (final Map.Entry<String, Object> entry : written.entrySet())
        {
            final Object actual = read.get(entry.getKey());
            if (!equal(entry.getValue(), actual))
            {
                differences.add(entry.getKey() + ": wrote " + show(entry.getValue()) + ", read " + show(actual));
            }
        }

        if (!read.keySet().equals(written.keySet()))
        {
            differences.add("fields written " + written.keySet() + " but read " + read.keySet());
        }

        return differences;
    }

    private void encodeFields(final Object encoder, final List<Token> tokens, final String prefix, final String msg)
        throws Exception
    {
        for (int i = 0; i < tokens.size(); )
        {
            final Token token = tokens.get(i);
            switch (token.signal())
            {
                case BEGIN_FIELD:
                    encodeValue(encoder, token.name(), tokens.get(i + 1), tokens, i + 1, prefix);
                    break;

                case BEGIN_GROUP:
                {
                    final int max = Math.min(MAX_GROUP_ENTRIES, groupLimit(token.name()));
                    final int count = random.nextInt(max + 1);
                    final Object group = invoke(encoder, token.name() + "Count", count);
                    written.put(prefix + token.name() + ".count", count);
                    final Token dimensions = tokens.get(i + 1);
                    final List<Token> body =
                        tokens.subList(i + 1 + dimensions.componentTokenCount(), i + token.componentTokenCount() - 1);
                    for (int n = 0; n < count; n++)
                    {
                        invoke(group, "next");
                        encodeFields(group, body, prefix + token.name() + "[" + n + "].", msg);
                    }
                    break;
                }

                case BEGIN_VAR_DATA:
                    if (!"Data".equals(msg))
                    {
                        final byte[] bytes = randomText(random.nextInt(MAX_VAR_DATA + 1));
                        invoke(encoder, "put" + capitalise(token.name()), bytes, 0, bytes.length);
                        written.put(prefix + token.name(), bytes);
                    }
                    break;

                default:
                    throw new IllegalStateException("unexpected " + token);
            }
            i += token.componentTokenCount();
        }
    }

    private void encodeValue(
        final Object encoder, final String name, final Token type, final List<Token> tokens, final int index,
        final String prefix) throws Exception
    {
        switch (type.signal())
        {
            case ENCODING:
            {
                final Object value = randomPrimitive(type.encoding().primitiveType(), name);
                invokeSetter(encoder, name, value);
                written.put(prefix + name, value);
                break;
            }

            case BEGIN_ENUM:
            {
                final Method setter = findMethod(encoder.getClass(), name, 1);
                final Object[] constants = Arrays.stream(setter.getParameterTypes()[0].getEnumConstants())
                    .filter((c) -> !"NULL_VAL".equals(((Enum<?>)c).name())).toArray();
                final Object value = constants[random.nextInt(constants.length)];
                setter.invoke(encoder, value);
                written.put(prefix + name, value);
                break;
            }

            case BEGIN_SET:
            {
                final Object set = invoke(encoder, name);
                invoke(set, "clear");
                for (int i = index + 1; tokens.get(i).signal() == Signal.CHOICE; i++)
                {
                    final boolean value = random.nextBoolean();
                    invokeSetter(set, tokens.get(i).name(), value);
                    written.put(prefix + name + "." + tokens.get(i).name(), value);
                }
                break;
            }

            case BEGIN_COMPOSITE:
            {
                final Object composite = invoke(encoder, name);
                for (int i = index + 1; tokens.get(i).signal() != Signal.END_COMPOSITE; )
                {
                    final Token member = tokens.get(i);
                    encodeValue(composite, member.name(), member, tokens, i, prefix + name + ".");
                    i += Math.max(1, member.componentTokenCount());
                }
                break;
            }

            default:
                throw new IllegalStateException("unexpected " + type);
        }
    }

    /**
     * Read every field, group entry and var-data value of a message through its decoder.
     *
     * @return the values keyed by field path, in schema order.
     */
    static Map<String, Object> readAll(final Ir ir, final int templateId, final Object decoder) throws Exception
    {
        final List<Token> tokens = ir.getMessage(templateId);
        final Map<String, Object> read = new LinkedHashMap<>();
        decodeFields(decoder, tokens.subList(1, tokens.size() - 1), "", read);
        return read;
    }

    private static void decodeFields(
        final Object decoder, final List<Token> tokens, final String prefix, final Map<String, Object> read)
        throws Exception
    {
        for (int i = 0; i < tokens.size(); )
        {
            final Token token = tokens.get(i);
            switch (token.signal())
            {
                case BEGIN_FIELD:
                    decodeValue(decoder, token.name(), tokens.get(i + 1), tokens, i + 1, prefix, read);
                    break;

                case BEGIN_GROUP:
                {
                    final Object group = invoke(decoder, token.name());
                    final int count = (int)invoke(group, "count");
                    read.put(prefix + token.name() + ".count", count);
                    read.put(prefix + token.name() + ".blockLength", invoke(group, "actingBlockLength"));
                    final Token dimensions = tokens.get(i + 1);
                    final List<Token> body =
                        tokens.subList(i + 1 + dimensions.componentTokenCount(), i + token.componentTokenCount() - 1);
                    for (int n = 0; n < count; n++)
                    {
                        invoke(group, "next");
                        decodeFields(group, body, prefix + token.name() + "[" + n + "].", read);
                    }
                    break;
                }

                case BEGIN_VAR_DATA:
                {
                    final int length = (int)invoke(decoder, token.name() + "Length");
                    final int remaining = ((org.agrona.DirectBuffer)invoke(decoder, "buffer")).capacity() -
                        (int)invoke(decoder, "limit");
                    if (length < 0 || length > remaining)
                    {
                        throw new IndexOutOfBoundsException(token.name() + " length " + length + " > " + remaining);
                    }
                    final byte[] bytes = new byte[length];
                    invoke(decoder, "get" + capitalise(token.name()), bytes, 0, length);
                    read.put(prefix + token.name(), bytes);
                    break;
                }

                default:
                    throw new IllegalStateException("unexpected " + token);
            }
            i += token.componentTokenCount();
        }
    }

    private static void decodeValue(
        final Object decoder, final String name, final Token type, final List<Token> tokens, final int index,
        final String prefix, final Map<String, Object> read) throws Exception
    {
        switch (type.signal())
        {
            case ENCODING:
            case BEGIN_ENUM:
                read.put(prefix + name, invoke(decoder, name));
                break;

            case BEGIN_SET:
            {
                final Object set = invoke(decoder, name);
                for (int i = index + 1; tokens.get(i).signal() == Signal.CHOICE; i++)
                {
                    read.put(prefix + name + "." + tokens.get(i).name(), invoke(set, tokens.get(i).name()));
                }
                break;
            }

            case BEGIN_COMPOSITE:
            {
                final Object composite = invoke(decoder, name);
                for (int i = index + 1; tokens.get(i).signal() != Signal.END_COMPOSITE; )
                {
                    final Token member = tokens.get(i);
                    decodeValue(composite, member.name(), member, tokens, i, prefix + name + ".", read);
                    i += Math.max(1, member.componentTokenCount());
                }
                break;
            }

            default:
                throw new IllegalStateException("unexpected " + type);
        }
    }

    /**
     * Give a DATA a placement tuple and a payload of whole frames that agree: 1-3 data frames and, sometimes,
     * a trailing padding frame.
     */
    private void writeDataPayload(final Object encoder) throws Exception
    {
        final int termOffset = random.nextInt(1 << 15) * FrameDescriptor.FRAME_ALIGNMENT;
        invokeSetter(encoder, "termOffset", termOffset);
        written.put("termOffset", termOffset);
        final int sessionId = (int)written.get("sessionId");
        final int streamId = (int)written.get("streamId");
        final int termId = (int)written.get("termId");

        final byte[] payload = new byte[2048];
        final org.agrona.concurrent.UnsafeBuffer frames = new org.agrona.concurrent.UnsafeBuffer(payload);
        int position = 0;
        final int dataFrames = 1 + random.nextInt(3);
        for (int i = 0; i < dataFrames; i++)
        {
            final int frameLength = FrameDescriptor.HEADER_LENGTH + random.nextInt(200);
            writeFrameHeader(frames, position, frameLength, FrameDescriptor.TYPE_DATA, termOffset + position,
                sessionId, streamId, termId);
            for (int b = FrameDescriptor.HEADER_LENGTH; b < frameLength; b++)
            {
                frames.putByte(position + b, (byte)random.nextInt());
            }
            position += FrameDescriptor.alignedLength(frameLength);
        }

        if (random.nextBoolean())
        {
            final int padLength = FrameDescriptor.FRAME_ALIGNMENT * (1 + random.nextInt(64));
            writeFrameHeader(frames, position, padLength, FrameDescriptor.TYPE_PAD, termOffset + position,
                sessionId, streamId, termId);
            position += FrameDescriptor.HEADER_LENGTH;
        }

        final byte[] bytes = Arrays.copyOf(payload, position);
        invoke(encoder, "putPayload", bytes, 0, bytes.length);
        written.put("payload", bytes);
    }

    static void writeFrameHeader(
        final MutableDirectBuffer buffer, final int offset, final int frameLength, final int type,
        final int termOffset, final int sessionId, final int streamId, final int termId)
    {
        buffer.putInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(offset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        buffer.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        buffer.putShort(offset + FrameDescriptor.TYPE_OFFSET, (short)type, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, sessionId, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.STREAM_ID_OFFSET, streamId, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(offset + FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(offset + FrameDescriptor.RESERVED_VALUE_OFFSET, 0L, ByteOrder.LITTLE_ENDIAN);
    }

    private static int groupLimit(final String groupName)
    {
        switch (groupName)
        {
            case "sackWords":
                return WireProtocol.MAX_SACK_WORDS;
            case "paths":
                return WireProtocol.MAX_STATUS_PATHS;
            case "windows":
                return WireProtocol.MAX_STREAM_WINDOWS;
            default:
                throw new IllegalArgumentException("no limit known for group " + groupName);
        }
    }

    private Object randomPrimitive(final PrimitiveType type, final String name)
    {
        switch (type)
        {
            case UINT8:
                return (short)random.nextInt(256);
            case UINT16:
                return random.nextInt(65_536);
            case UINT32:
                return random.nextLong() & 0xFFFF_FFFFL;
            case UINT64:
            case INT64:
                return random.nextLong();
            case INT8:
                return (byte)random.nextInt();
            case INT16:
                return (short)random.nextInt();
            case INT32:
                return random.nextInt();
            default:
                throw new IllegalStateException("no generator for " + type + " of " + name);
        }
    }

    private byte[] randomText(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(0x20 + random.nextInt(0x5F));
        }
        return bytes;
    }

    private Class<?> type(final String simpleName) throws ClassNotFoundException
    {
        return Class.forName(codecPackage + "." + simpleName);
    }

    private static void invokeSetter(final Object target, final String name, final Object value) throws Exception
    {
        findMethod(target.getClass(), name, 1).invoke(target, value);
    }

    static Object invoke(final Object target, final String name, final Object... args) throws Exception
    {
        try
        {
            return findMethod(target.getClass(), name, args.length, args).invoke(target, args);
        }
        catch (final InvocationTargetException ex)
        {
            if (ex.getCause() instanceof Exception)
            {
                throw (Exception)ex.getCause();
            }
            throw ex;
        }
    }

    private static Method findMethod(final Class<?> type, final String name, final int arity, final Object... args)
    {
        for (final Method method : type.getMethods())
        {
            if (method.getName().equals(name) && method.getParameterCount() == arity &&
                (0 == args.length || matches(method.getParameterTypes(), args)))
            {
                return method;
            }
        }
        throw new IllegalArgumentException(type.getSimpleName() + "." + name + "/" + arity);
    }

    private static boolean matches(final Class<?>[] parameters, final Object[] args)
    {
        for (int i = 0; i < parameters.length; i++)
        {
            final Class<?> parameter = parameters[i];
            final Object arg = args[i];
            if (parameter.isPrimitive())
            {
                final boolean ok =
                    (parameter == int.class && arg instanceof Integer) ||
                    (parameter == long.class && arg instanceof Long) ||
                    (parameter == short.class && arg instanceof Short) ||
                    (parameter == byte.class && arg instanceof Byte) ||
                    (parameter == boolean.class && arg instanceof Boolean);
                if (!ok)
                {
                    return false;
                }
            }
            else if (!parameter.isInstance(arg))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean equal(final Object expected, final Object actual)
    {
        if (expected instanceof byte[] && actual instanceof byte[])
        {
            return Arrays.equals((byte[])expected, (byte[])actual);
        }
        return expected.equals(actual);
    }

    private static String show(final Object value)
    {
        return value instanceof byte[] ? Arrays.toString((byte[])value) : String.valueOf(value);
    }

    private static String capitalise(final String name)
    {
        return name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
    }
}
