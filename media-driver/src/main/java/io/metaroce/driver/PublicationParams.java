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

import io.metaroce.client.ChannelUri;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.control.ControlErrorCode;
import org.agrona.SystemUtil;

import java.util.List;
import java.util.Map;

/**
 * The settings of a new publication: the driver's defaults overridden by the channel's parameters, each validated
 * with an {@code INVALID_CHANNEL} error naming the parameter. Also checks that a concurrent publication joining an
 * existing one does not ask for different settings ({@code CLASH}).
 */
final class PublicationParams
{
    /**
     * Parameters of an IPC publication.
     */
    static final List<String> IPC_PUBLICATION_PARAMS = List.of(ChannelUri.TERM_LENGTH_PARAM, ChannelUri.MTU_PARAM,
        ChannelUri.TERM_WINDOW_PARAM, ChannelUri.LINGER_PARAM, ChannelUri.SPARSE_PARAM,
        ChannelUri.INITIAL_TERM_ID_PARAM, ChannelUri.TERM_ID_PARAM, ChannelUri.TERM_OFFSET_PARAM);

    int termLength;
    int mtu;
    int termWindowLength;
    long lingerTimeoutNs;
    boolean isSparse;
    boolean hasPosition;
    int initialTermId;
    int termId;
    int termOffset;
    final ChannelUri channelUri;

    private PublicationParams(final ChannelUri channelUri)
    {
        this.channelUri = channelUri;
    }

    static PublicationParams of(final ChannelUri uri, final MediaDriver.Context ctx, final boolean isExclusive)
    {
        final PublicationParams params = new PublicationParams(uri);
        params.termLength = ctx.ipcTermLength();
        params.mtu = ctx.ipcMtu();
        params.lingerTimeoutNs = ctx.publicationLingerTimeoutNs();
        params.isSparse = ctx.termSparseFile();

        for (final Map.Entry<String, String> entry : uri.params().entrySet())
        {
            final String key = entry.getKey();
            final String value = entry.getValue();
            switch (key)
            {
                case ChannelUri.TERM_LENGTH_PARAM:
                    params.termLength = parseTermLength(value);
                    break;
                case ChannelUri.MTU_PARAM:
                    params.mtu = (int)parseSize(key, value);
                    break;
                case ChannelUri.TERM_WINDOW_PARAM:
                    params.termWindowLength = (int)parseSize(key, value);
                    break;
                case ChannelUri.LINGER_PARAM:
                    params.lingerTimeoutNs = parseDuration(key, value);
                    break;
                case ChannelUri.SPARSE_PARAM:
                    params.isSparse = parseBoolean(key, value);
                    break;
                case ChannelUri.INITIAL_TERM_ID_PARAM:
                    params.initialTermId = parseInt(key, value, isExclusive);
                    break;
                case ChannelUri.TERM_ID_PARAM:
                    params.termId = parseInt(key, value, isExclusive);
                    break;
                case ChannelUri.TERM_OFFSET_PARAM:
                    params.termOffset = parseInt(key, value, isExclusive);
                    break;
                default:
                    throw invalid("unknown parameter '" + key + "' for a publication on metaroce:" + uri.media());
            }
        }

        params.validate(ctx.ipcTermWindowLength());
        return params;
    }

    /**
     * Check the parameters of an IPC subscription: it has none of its own and ignores the publication's, as Aeron
     * does, so that one channel string serves both; any other key is refused.
     */
    static void checkSubscriptionParams(final ChannelUri uri)
    {
        for (final String key : uri.params().keySet())
        {
            if (!IPC_PUBLICATION_PARAMS.contains(key))
            {
                throw invalid("unknown parameter '" + key + "' for a subscription on metaroce:" + uri.media() +
                    ": a subscription takes no parameter of its own and ignores the publication's (" +
                    String.join(", ", IPC_PUBLICATION_PARAMS) + ")");
            }
        }
    }

    void checkCompatibleWith(final IpcPublication publication)
    {
        checkSame(ChannelUri.TERM_LENGTH_PARAM, termLength, publication.termLength());
        checkSame(ChannelUri.MTU_PARAM, mtu, publication.mtu());
        checkSame(ChannelUri.TERM_WINDOW_PARAM, termWindowLength, publication.termWindowLength());
    }

    private void checkSame(final String key, final long requested, final long existing)
    {
        if (channelUri.containsKey(key) && requested != existing)
        {
            throw new ControlProtocolException(ControlErrorCode.CLASH, "parameter '" + key + "=" + requested +
                "' conflicts with the existing publication on this stream, which has " + key + "=" + existing);
        }
    }

    private void validate(final int defaultTermWindowLength)
    {
        if (mtu < 2 * FrameDescriptor.HEADER_LENGTH || mtu > Configuration.MAX_MTU ||
            0 != (mtu % FrameDescriptor.FRAME_ALIGNMENT))
        {
            throw invalid("parameter 'mtu=" + mtu + "' must be a multiple of " + FrameDescriptor.FRAME_ALIGNMENT +
                " between " + 2 * FrameDescriptor.HEADER_LENGTH + " and " + Configuration.MAX_MTU);
        }

        if (mtu > termLength / 8)
        {
            throw invalid("parameter 'mtu=" + mtu + "' must not exceed an eighth of the term length " + termLength);
        }

        if (channelUri.containsKey(ChannelUri.TERM_WINDOW_PARAM))
        {
            if (termWindowLength < mtu || termWindowLength > termLength / 2)
            {
                throw invalid("parameter 'term-window=" + termWindowLength + "' must be between the mtu " + mtu +
                    " and half the term length " + termLength / 2);
            }
        }
        else
        {
            termWindowLength = 0 == defaultTermWindowLength ?
                termLength / 2 : Math.min(defaultTermWindowLength, termLength / 2);
        }

        if (lingerTimeoutNs < 0)
        {
            throw invalid("parameter 'linger' must not be negative");
        }

        validatePosition();
    }

    private void validatePosition()
    {
        final int count = (channelUri.containsKey(ChannelUri.INITIAL_TERM_ID_PARAM) ? 1 : 0) +
            (channelUri.containsKey(ChannelUri.TERM_ID_PARAM) ? 1 : 0) +
            (channelUri.containsKey(ChannelUri.TERM_OFFSET_PARAM) ? 1 : 0);

        if (0 == count)
        {
            return;
        }

        if (3 != count)
        {
            throw invalid("parameters 'init-term-id', 'term-id' and 'term-offset' must be given together");
        }

        if (termId - initialTermId < 0)
        {
            throw invalid("parameter 'term-id=" + termId + "' is before 'init-term-id=" + initialTermId + "'");
        }

        if (termOffset < 0 || termOffset > termLength || 0 != (termOffset % FrameDescriptor.FRAME_ALIGNMENT))
        {
            throw invalid("parameter 'term-offset=" + termOffset + "' must be a multiple of " +
                FrameDescriptor.FRAME_ALIGNMENT + " between 0 and the term length " + termLength);
        }

        hasPosition = true;
    }

    private static int parseTermLength(final String value)
    {
        final long termLength = parseSize(ChannelUri.TERM_LENGTH_PARAM, value);
        try
        {
            if (termLength > Integer.MAX_VALUE)
            {
                throw new IllegalArgumentException("term length too large: " + termLength);
            }
            LogBufferDescriptor.checkTermLength((int)termLength);
        }
        catch (final IllegalArgumentException ex)
        {
            throw invalid("parameter 'term-length=" + value + "': " + ex.getMessage());
        }

        return (int)termLength;
    }

    private static long parseSize(final String key, final String value)
    {
        try
        {
            final long size = SystemUtil.parseSize(key, value);
            if (size < 0 || size > Integer.MAX_VALUE)
            {
                throw invalid("parameter '" + key + "=" + value + "' is out of range");
            }
            return size;
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not a size (such as 65536, 64k or 16m)");
        }
    }

    private static long parseDuration(final String key, final String value)
    {
        try
        {
            return SystemUtil.parseDuration(key, value);
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not a duration (such as 500ms or 5s)");
        }
    }

    private static boolean parseBoolean(final String key, final String value)
    {
        if ("true".equals(value))
        {
            return true;
        }

        if ("false".equals(value))
        {
            return false;
        }

        throw invalid("parameter '" + key + "=" + value + "' must be true or false");
    }

    private static int parseInt(final String key, final String value, final boolean isExclusive)
    {
        if (!isExclusive)
        {
            throw invalid("parameter '" + key + "' is only valid for exclusive publications");
        }

        try
        {
            return Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw invalid("parameter '" + key + "=" + value + "' is not a 32-bit integer");
        }
    }

    private static ControlProtocolException invalid(final String message)
    {
        return new ControlProtocolException(ControlErrorCode.INVALID_CHANNEL, message);
    }
}
