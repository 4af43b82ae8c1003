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
package io.metaroce.client.exceptions;

/**
 * The file system of the driver directory has too little usable space for a file the driver must create (the CnC
 * file at start, or a log buffer). Raised instead of mapping a file that would fault with SIGBUS once memory runs
 * out. The message names the directory, the space needed and the space usable.
 */
public final class StorageSpaceException extends MetaRoceException
{
    private static final long serialVersionUID = -1394753150622219371L;

    /**
     * Create an exception.
     *
     * @param message naming the directory and the sizes.
     */
    public StorageSpaceException(final String message)
    {
        super(message);
    }
}
