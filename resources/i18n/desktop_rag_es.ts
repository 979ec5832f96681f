<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es">
<context>
    <name>ChatPane</name>
    <message>
        <source>Show the documents&apos; own sentences</source>
        <translation>Mostrar las frases de los propios documentos</translation>
    </message>
    <message>
        <source>Finding the documents&apos; own sentences…</source>
        <translation>Buscando las frases de los propios documentos…</translation>
    </message>
    <message>
        <source>None of the sources&apos; sentences answers it closely enough.</source>
        <translation>Ninguna frase de las fuentes responde con suficiente precisión.</translation>
    </message>
    <message>
        <source>{n}th</source>
        <translation>n.º {n}</translation>
    </message>
    <message>
        <source>{nth} best match for your words</source>
        <translation>{nth} por sus palabras</translation>
    </message>
    <message>
        <source>none of your words</source>
        <translation>ninguna de sus palabras</translation>
    </message>
    <message>
        <source>{nth} closest in meaning</source>
        <translation>{nth} por el significado</translation>
    </message>
    <message>
        <source>not among the closest in meaning</source>
        <translation>no entre los más cercanos por el significado</translation>
    </message>
    <message>
        <source>moved up for its best sentence</source>
        <translation>subido por su mejor frase</translation>
    </message>
    <message>
        <source>moved down: {why}</source>
        <translation>bajado: {why}</translation>
    </message>
    <message>
        <source>Show the model&apos;s answer</source>
        <translation>Mostrar la respuesta del modelo</translation>
    </message>
    <message>
        <source>Show {model}&apos;s answer</source>
        <translation>Mostrar la respuesta de {model}</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Conversación</translation>
    </message>
    <message>
        <source>Answer status</source>
        <translation>Estado de la respuesta</translation>
    </message>
    <message>
        <source>Ask a question about your documents…</source>
        <translation>Haga una pregunta sobre sus documentos…</translation>
    </message>
    <message>
        <source>Enter sends the question; Shift+Enter starts a new line</source>
        <translation>Intro envía la pregunta; Mayús+Intro empieza una línea nueva</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Pregunta</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Preguntar</translation>
    </message>
    <message>
        <source>Send the question (Enter)</source>
        <translation>Enviar la pregunta (Intro)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Detener</translation>
    </message>
    <message>
        <source>Stop answering</source>
        <translation>Detener la respuesta</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>Detener la respuesta (Esc)</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Alcance</translation>
    </message>
    <message>
        <source>Clear the scope</source>
        <translation>Quitar el alcance</translation>
    </message>
    <message>
        <source>Ask the whole library again</source>
        <translation>Preguntar de nuevo a toda la biblioteca</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Cambiar</translation>
    </message>
    <message>
        <source>Change the scope</source>
        <translation>Cambiar el alcance</translation>
    </message>
    <message>
        <source>Answer from a saved collection, or from all documents</source>
        <translation>Responder a partir de una colección guardada o de todos los documentos</translation>
    </message>
    <message>
        <source>All documents</source>
        <translation>Todos los documentos</translation>
    </message>
    <message>
        <source>Answering from: {scope}</source>
        <translation>Respondiendo a partir de: {scope}</translation>
    </message>
    <message>
        <source>Ask a question about {scope}…</source>
        <translation>Haga una pregunta sobre {scope}…</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Usted</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Pensando…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>Detenida.</translation>
    </message>
    <message>
        <source>Copy answer</source>
        <translation>Copiar la respuesta</translation>
    </message>
    <message>
        <source>Hide ranking</source>
        <translation>Ocultar la clasificación</translation>
    </message>
    <message>
        <source>Why these?</source>
        <translation>¿Por qué estas?</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>no registrado</translation>
    </message>
    <message>
        <source>Hide the figures</source>
        <translation>Ocultar las cifras</translation>
    </message>
    <message>
        <source>Show the search&apos;s figures</source>
        <translation>Mostrar las cifras de la búsqueda</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Fuentes</translation>
    </message>
    <message>
        <source>In the sources&apos; own words</source>
        <translation>Con las palabras de las propias fuentes</translation>
    </message>
    <message>
        <source>Your library starts with the Desktop RAG user guide. Ask it something:</source>
        <translation>Su biblioteca empieza con la guía del usuario de Desktop RAG. Pregúntele algo:</translation>
    </message>
    <message>
        <source>Ask anything about the {n} documents in your library. For example:</source>
        <translation>Pregunte lo que quiera sobre los {n} documentos de su biblioteca. Por ejemplo:</translation>
    </message>
    <message>
        <source>Ask anything about the documents in your library. For example:</source>
        <translation>Pregunte lo que quiera sobre los documentos de su biblioteca. Por ejemplo:</translation>
    </message>
    <message>
        <source>Ask your documents</source>
        <translation>Pregunte a sus documentos</translation>
    </message>
    <message>
        <source>Add documents by dropping files or folders on this window, or with &lt;i&gt;Add folder&lt;/i&gt; (Ctrl+O). Answers cite their sources as [1], [2]…: click one to see the page. Everything stays on this computer.</source>
        <translation>Añada documentos arrastrando archivos o carpetas a esta ventana, o con &lt;i&gt;Añadir carpeta&lt;/i&gt; (Ctrl+O). Las respuestas citan sus fuentes como [1], [2]…: haga clic en una para ver la página. Todo se queda en este ordenador.</translation>
    </message>
</context>
<context>
    <name>ConversationsModel</name>
    <message>
        <source>New conversation</source>
        <translation>Nueva conversación</translation>
    </message>
    <message>
        <source>1 question</source>
        <translation>1 pregunta</translation>
    </message>
    <message>
        <source>{n} questions</source>
        <translation>{n} preguntas</translation>
    </message>
</context>
<context>
    <name>ConversationsPane</name>
    <message>
        <source>New</source>
        <translation>Nueva</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>Empezar una conversación nueva (Ctrl+N)</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>Nueva conversación</translation>
    </message>
    <message>
        <source>Your conversations will be listed here.</source>
        <translation>Sus conversaciones aparecerán aquí.</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversaciones</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Eliminar la conversación</translation>
    </message>
</context>
<context>
    <name>DocumentListModel</name>
    <message>
        <source>Document</source>
        <translation>Documento</translation>
    </message>
    <message>
        <source>Matching passages</source>
        <translation>Pasajes coincidentes</translation>
    </message>
    <message>
        <source>Best page</source>
        <translation>Mejor página</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Carpeta</translation>
    </message>
</context>
<context>
    <name>DocumentListPanel</name>
    <message>
        <source>Documents found</source>
        <translation>Documentos encontrados</translation>
    </message>
    <message>
        <source>Documents that answer the question</source>
        <translation>Documentos que responden a la pregunta</translation>
    </message>
    <message>
        <source>Click a document to open it at its best passage</source>
        <translation>Haga clic en un documento para abrirlo en su mejor pasaje</translation>
    </message>
</context>
<context>
    <name>DocumentsModel</name>
    <message>
        <source>Queued</source>
        <translation>En cola</translation>
    </message>
    <message>
        <source>Indexing…</source>
        <translation>Indexando…</translation>
    </message>
    <message>
        <source>Indexed</source>
        <translation>Indexado</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Error</translation>
    </message>
    <message>
        <source>Removed from the index</source>
        <translation>Quitado del índice</translation>
    </message>
    <message>
        <source>Indexing</source>
        <translation>Indexando</translation>
    </message>
    <message>
        <source>Removed</source>
        <translation>Quitado</translation>
    </message>
    <message>
        <source>{pages} pages, read with OCR</source>
        <translation>{pages} páginas, leídas con OCR</translation>
    </message>
    <message>
        <source>{pages} pages, some read with OCR</source>
        <translation>{pages} páginas, algunas leídas con OCR</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nombre</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>Páginas</translation>
    </message>
    <message>
        <source>Passages</source>
        <translation>Pasajes</translation>
    </message>
    <message>
        <source>1 section</source>
        <translation>1 sección</translation>
    </message>
    <message>
        <source>{n} sections</source>
        <translation>{n} secciones</translation>
    </message>
    <message>
        <source>1 passage indexed</source>
        <translation>1 pasaje indexado</translation>
    </message>
    <message>
        <source>{n} passages indexed</source>
        <translation>{n} pasajes indexados</translation>
    </message>
</context>
<context>
    <name>DocumentsPane</name>
    <message>
        <source>Add folder…</source>
        <translation>Añadir carpeta…</translation>
    </message>
    <message>
        <source>Watch a folder of documents (Ctrl+O)</source>
        <translation>Vigilar una carpeta de documentos (Ctrl+O)</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Quitar</translation>
    </message>
    <message>
        <source>Stop watching the selected folder</source>
        <translation>Dejar de vigilar la carpeta seleccionada</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Carpetas vigiladas</translation>
    </message>
    <message>
        <source>Filter files</source>
        <translation>Filtrar archivos</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>Documentos</translation>
    </message>
    <message>
        <source>Selected file</source>
        <translation>Archivo seleccionado</translation>
    </message>
    <message>
        <source>Indexing progress</source>
        <translation>Progreso de la indexación</translation>
    </message>
    <message>
        <source>Library summary</source>
        <translation>Resumen de la biblioteca</translation>
    </message>
    <message>
        <source>Indexing status</source>
        <translation>Estado de la indexación</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausa</translation>
    </message>
    <message>
        <source>Pause indexing</source>
        <translation>Pausar la indexación</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>Stop indexing; what is done is kept</source>
        <translation>Detener la indexación; se conserva lo ya hecho</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>Volver a buscar</translation>
    </message>
    <message>
        <source>Check the watched folders for changes</source>
        <translation>Buscar cambios en las carpetas vigiladas</translation>
    </message>
    <message>
        <source>(not watched: checked {every})</source>
        <translation>(no vigilada: se comprueba {every})</translation>
    </message>
    <message>
        <source>Folder {path}</source>
        <translation>Carpeta {path}</translation>
    </message>
    <message>
        <source>Ask about these</source>
        <translation>Preguntar sobre estos</translation>
    </message>
    <message>
        <source>Ask about this document</source>
        <translation>Preguntar sobre este documento</translation>
    </message>
    <message>
        <source>A new conversation that answers from these documents only</source>
        <translation>Una conversación nueva que responde solo a partir de estos documentos</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Abrir</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>Mostrar en la carpeta</translation>
    </message>
    <message>
        <source>Outline</source>
        <translation>Esquema</translation>
    </message>
    <message>
        <source>Its headings, each with its most central sentences and their pages, in the chat</source>
        <translation>Sus títulos, cada uno con sus frases más centrales y sus páginas, en el chat</translation>
    </message>
    <message>
        <source>Enter password…</source>
        <translation>Introducir la contraseña…</translation>
    </message>
    <message>
        <source>Include again</source>
        <translation>Volver a incluir</translation>
    </message>
    <message>
        <source>Index again</source>
        <translation>Volver a indexar</translation>
    </message>
    <message>
        <source>Read with OCR</source>
        <translation>Leer con OCR</translation>
    </message>
    <message>
        <source>For a PDF whose text comes out as garbage: read every page from its image instead. Remembered for this file.</source>
        <translation>Para un PDF cuyo texto sale ilegible: leer cada página a partir de su imagen. Se recuerda para este archivo.</translation>
    </message>
    <message>
        <source>Remove from the index</source>
        <translation>Quitar del índice</translation>
    </message>
    <message>
        <source>The reader said: {words}</source>
        <translation>El lector indicó: {words}</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>Ocultar</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Detalles</translation>
    </message>
    <message>
        <source>Looking for changes…</source>
        <translation>Buscando cambios…</translation>
    </message>
    <message>
        <source>{done} of {total} files · {pages} pages</source>
        <translation>{done} de {total} archivos · {pages} páginas</translation>
    </message>
    <message>
        <source>about {eta} left</source>
        <translation>quedan unos {eta}</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reanudar</translation>
    </message>
    <message>
        <source>Carry on indexing</source>
        <translation>Continuar la indexación</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>En pausa</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Abriendo la biblioteca…</translation>
    </message>
    <message>
        <source>No documents yet. Drop files or a folder on this window, or add a folder.</source>
        <translation>Aún no hay documentos. Arrastre archivos o una carpeta a esta ventana, o añada una carpeta.</translation>
    </message>
    <message>
        <source>1 document · {pages} pages indexed</source>
        <translation>1 documento · {pages} páginas indexadas</translation>
    </message>
    <message>
        <source>{n} documents · {pages} pages indexed</source>
        <translation>{n} documentos · {pages} páginas indexadas</translation>
    </message>
    <message>
        <source>{n} could not be read</source>
        <translation>{n} no se pudieron leer</translation>
    </message>
    <message>
        <source>{n} waiting</source>
        <translation>{n} en espera</translation>
    </message>
    <message>
        <source>Indexing cancelled; what was done is kept.</source>
        <translation>Indexación cancelada; se conserva lo ya hecho.</translation>
    </message>
</context>
<context>
    <name>KindBar</name>
    <message>
        <source>Answer from &amp;passages</source>
        <translation>Responder con &amp;pasajes</translation>
    </message>
    <message>
        <source>Answer with the &amp;document&apos;s outline</source>
        <translation>Responder con el &amp;esquema del documento</translation>
    </message>
    <message>
        <source>Answer with a &amp;list of documents</source>
        <translation>Responder con una &amp;lista de documentos</translation>
    </message>
    <message>
        <source>Kind of question</source>
        <translation>Tipo de pregunta</translation>
    </message>
    <message>
        <source>How the question was taken, by plain rules; Answer as asks it again as another kind</source>
        <translation>Cómo se entendió la pregunta, según reglas sencillas; «Responder como» la vuelve a hacer como otro tipo</translation>
    </message>
    <message>
        <source>Answer as</source>
        <translation>Responder como</translation>
    </message>
    <message>
        <source>Answer as another kind of question</source>
        <translation>Responder como otro tipo de pregunta</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Sho&amp;w the model&apos;s answer</source>
        <translation>&amp;Mostrar la respuesta del modelo</translation>
    </message>
    <message>
        <source>Sho&amp;w {model}&apos;s answer</source>
        <translation>&amp;Mostrar la respuesta de {model}</translation>
    </message>
    <message>
        <source>Sho&amp;w the documents&apos; own sentences</source>
        <translation>&amp;Mostrar las frases de los propios documentos</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nueva conversación</translation>
    </message>
    <message>
        <source>Add &amp;folder…</source>
        <translation>Añadir &amp;carpeta…</translation>
    </message>
    <message>
        <source>Add &amp;documents…</source>
        <translation>Añadir &amp;documentos…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Ajustes…</translation>
    </message>
    <message>
        <source>&amp;Rebuild index…</source>
        <translation>&amp;Reconstruir el índice…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Stop answering</source>
        <translation>&amp;Detener la respuesta</translation>
    </message>
    <message>
        <source>&amp;Copy last answer</source>
        <translation>&amp;Copiar la última respuesta</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>&amp;Guía del usuario</translation>
    </message>
    <message>
        <source>&amp;About Desktop RAG</source>
        <translation>&amp;Acerca de Desktop RAG</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Biblioteca</translation>
    </message>
    <message>
        <source>Show your documents and conversations (Ctrl+L)</source>
        <translation>Mostrar sus documentos y conversaciones (Ctrl+L)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Archivo</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>&amp;Chat</translation>
    </message>
    <message>
        <source>&amp;Answer as</source>
        <translation>&amp;Responder como</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>A&amp;yuda</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Principal</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Abriendo la biblioteca…</translation>
    </message>
    <message>
        <source>Library state</source>
        <translation>Estado de la biblioteca</translation>
    </message>
    <message>
        <source>Search model state</source>
        <translation>Estado del modelo de búsqueda</translation>
    </message>
    <message>
        <source>Answer model state</source>
        <translation>Estado del modelo de respuesta</translation>
    </message>
    <message>
        <source>Library: cannot be opened</source>
        <translation>Biblioteca: no se puede abrir</translation>
    </message>
    <message>
        <source>The library cannot be opened</source>
        <translation>No se puede abrir la biblioteca</translation>
    </message>
    <message>
        <source>Library: needs rebuilding</source>
        <translation>Biblioteca: hay que reconstruirla</translation>
    </message>
    <message>
        <source>Most of this library is in {language}: Settings &gt; “My documents are in several languages” finds its passages better.</source>
        <translation>La mayor parte de esta biblioteca está en {language}: Ajustes &gt; «Mis documentos están en varios idiomas» encuentra mejor sus pasajes.</translation>
    </message>
    <message>
        <source>German</source>
        <translation>alemán</translation>
    </message>
    <message>
        <source>French</source>
        <translation>francés</translation>
    </message>
    <message>
        <source>Spanish</source>
        <translation>español</translation>
    </message>
    <message>
        <source>Italian</source>
        <translation>italiano</translation>
    </message>
    <message>
        <source>Portuguese</source>
        <translation>portugués</translation>
    </message>
    <message>
        <source>Dutch</source>
        <translation>neerlandés</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>chino</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation>japonés</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation>coreano</translation>
    </message>
    <message>
        <source>The index is built again from every watched folder, beside the current one, which keeps answering until the new one is complete.</source>
        <translation>El índice se vuelve a crear a partir de todas las carpetas vigiladas, junto al actual, que sigue respondiendo hasta que el nuevo esté completo.</translation>
    </message>
    <message>
        <source>Rebuild the index?</source>
        <translation>¿Reconstruir el índice?</translation>
    </message>
    <message>
        <source>Rebuild now? Your files are not touched.</source>
        <translation>¿Reconstruir ahora? Sus archivos no se tocan.</translation>
    </message>
    <message>
        <source>The index was not rebuilt: it answers as it was built, and changes to your documents wait for a rebuild (File &gt; Rebuild index).</source>
        <translation>El índice no se reconstruyó: responde tal como se creó, y los cambios en sus documentos esperan a una reconstrucción (Archivo &gt; Reconstruir el índice).</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is being indexed.</source>
        <translation>¡Bienvenido! La carpeta de su biblioteca es {folder}; se está indexando la guía del usuario que contiene.</translation>
    </message>
    <message>
        <source>Found by words; computing vectors</source>
        <translation>Encontrado por palabras; calculando vectores</translation>
    </message>
    <message>
        <source>Indexing {done} of {total} files</source>
        <translation>Indexando {done} de {total} archivos</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is indexed: ask it a question below.</source>
        <translation>¡Bienvenido! La carpeta de su biblioteca es {folder}; la guía del usuario que contiene ya está indexada: hágale una pregunta abajo.</translation>
    </message>
    <message>
        <source>1 file could not be read; see Documents.</source>
        <translation>No se pudo leer 1 archivo; consulte Documentos.</translation>
    </message>
    <message>
        <source>{n} files could not be read; see Documents.</source>
        <translation>No se pudieron leer {n} archivos; consulte Documentos.</translation>
    </message>
    <message>
        <source>Indexing stopped: {why}</source>
        <translation>Indexación detenida: {why}</translation>
    </message>
    <message>
        <source>1 document</source>
        <translation>1 documento</translation>
    </message>
    <message>
        <source>{n} documents</source>
        <translation>{n} documentos</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (indexing)</source>
        <translation>Biblioteca: {documents}, {pages} páginas (indexando)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (needs rebuilding)</source>
        <translation>Biblioteca: {documents}, {pages} páginas (hay que reconstruirla)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages</source>
        <translation>Biblioteca: {documents}, {pages} páginas</translation>
    </message>
    <message>
        <source>Add a folder of documents to watch</source>
        <translation>Añadir una carpeta de documentos para vigilarla</translation>
    </message>
    <message>
        <source>Add documents (they are copied into your library)</source>
        <translation>Añadir documentos (se copian en su biblioteca)</translation>
    </message>
    <message>
        <source>Documents ({patterns});;PDF files (*.pdf);;All files (*)</source>
        <translation>Documentos ({patterns});;Archivos PDF (*.pdf);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>Stop watching this folder?</source>
        <translation>¿Dejar de vigilar esta carpeta?</translation>
    </message>
    <message>
        <source>Its documents will be removed from the index. The files on your disk are not touched.</source>
        <translation>Sus documentos se quitarán del índice. Los archivos de su disco no se tocan.</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Contraseña</translation>
    </message>
    <message>
        <source>Password for {name}
(used to read it now; not saved):</source>
        <translation>Contraseña de {name}
(se usa para leerlo ahora; no se guarda):</translation>
    </message>
    <message>
        <source>The library is still opening; ask again for {name} in a moment.</source>
        <translation>La biblioteca aún se está abriendo; vuelva a pedir {name} en un momento.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again after the indexing in progress.</source>
        <translation>{name} se volverá a indexar después de la indexación en curso.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again.</source>
        <translation>{name} está en cola para volver a indexarse.</translation>
    </message>
    <message>
        <source>Search: waiting</source>
        <translation>Búsqueda: en espera</translation>
    </message>
    <message>
        <source>Search: loading…</source>
        <translation>Búsqueda: cargando…</translation>
    </message>
    <message>
        <source>Search: ready</source>
        <translation>Búsqueda: lista</translation>
    </message>
    <message>
        <source>Search: failed</source>
        <translation>Búsqueda: error</translation>
    </message>
    <message>
        <source>Search: missing</source>
        <translation>Búsqueda: no encontrado</translation>
    </message>
    <message>
        <source>The model that finds passages (MiniLM)</source>
        <translation>El modelo que encuentra los pasajes (MiniLM)</translation>
    </message>
    <message>
        <source>Answers: waiting</source>
        <translation>Respuestas: en espera</translation>
    </message>
    <message>
        <source>Answers: loading…</source>
        <translation>Respuestas: cargando…</translation>
    </message>
    <message>
        <source>Answers: ready</source>
        <translation>Respuestas: listas</translation>
    </message>
    <message>
        <source>Answers: failed</source>
        <translation>Respuestas: error</translation>
    </message>
    <message>
        <source>Answers: unavailable</source>
        <translation>Respuestas: no disponibles</translation>
    </message>
    <message>
        <source>The answer model could not be loaded: {why}</source>
        <translation>No se pudo cargar el modelo de respuesta: {why}</translation>
    </message>
    <message>
        <source>Searching your documents…</source>
        <translation>Buscando en sus documentos…</translation>
    </message>
    <message>
        <source>Building the outline…</source>
        <translation>Creando el esquema…</translation>
    </message>
    <message>
        <source>Building the outline: {done} of {total} sections (ETA {eta})…</source>
        <translation>Creando el esquema: {done} de {total} secciones (faltan {eta})…</translation>
    </message>
    <message>
        <source>[{n}] is not one of this answer&apos;s sources.</source>
        <translation>[{n}] no es una de las fuentes de esta respuesta.</translation>
    </message>
    <message>
        <source>The documents&apos; own sentences were not found: {why}</source>
        <translation>No se encontraron las frases de los propios documentos: {why}</translation>
    </message>
    <message>
        <source>The guide is not in {folder}.</source>
        <translation>La guía no está en {folder}.</translation>
    </message>
    <message>
        <source>{path} cannot be opened ({why}).</source>
        <translation>No se puede abrir {path} ({why}).</translation>
    </message>
    <message>
        <source>Answer copied.</source>
        <translation>Respuesta copiada.</translation>
    </message>
    <message>
        <source>About Desktop RAG</source>
        <translation>Acerca de Desktop RAG</translation>
    </message>
    <message>
        <source>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Private answers from your own documents. Everything runs on this computer; nothing is sent anywhere.&lt;/p&gt;&lt;p&gt;Answer model: {model}&lt;br&gt;Data: {data}&lt;/p&gt;</source>
        <translation>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Respuestas privadas a partir de sus propios documentos. Todo se ejecuta en este ordenador; no se envía nada a ninguna parte.&lt;/p&gt;&lt;p&gt;Modelo de respuesta: {model}&lt;br&gt;Datos: {data}&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Using the model {name}.</source>
        <translation>Usando el modelo {name}.</translation>
    </message>
    <message>
        <source>{name} {why}; nothing added.</source>
        <translation>{name} {why}; no se añadió nada.</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>Wait for the current indexing to finish, then rebuild.</source>
        <translation>Espere a que termine la indexación en curso y luego reconstruya.</translation>
    </message>
    <message>
        <source>Rebuilding the index from your documents…</source>
        <translation>Reconstruyendo el índice a partir de sus documentos…</translation>
    </message>
    <message>
        <source>The index must be rebuilt before changes can be indexed; they are indexed once it is.</source>
        <translation>Hay que reconstruir el índice antes de poder indexar los cambios; se indexarán cuando esté listo.</translation>
    </message>
    <message>
        <source>The library is still opening; drop the files again in a moment.</source>
        <translation>La biblioteca aún se está abriendo; vuelva a arrastrar los archivos en un momento.</translation>
    </message>
    <message>
        <source>The library is still opening.</source>
        <translation>La biblioteca aún se está abriendo.</translation>
    </message>
    <message>
        <source>Answers cannot be composed from the sources here.</source>
        <translation>Aquí no se pueden componer respuestas a partir de las fuentes.</translation>
    </message>
    <message>
        <source>The conversation could not be saved: {why}</source>
        <translation>No se pudo guardar la conversación: {why}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Pages that are only pictures (scans, photos of pages) are read on this computer, up to half a minute a page. Print reads well in English, Chinese, Japanese and the languages written with accents (é, ü, ñ), which are kept. Handwriting is not read.</source>
        <translation>Las páginas que solo son imágenes (escaneos, fotos de páginas) se leen en este ordenador, hasta medio minuto por página. El texto impreso se lee bien en inglés, chino, japonés y en los idiomas con acentos (é, ü, ñ), que se conservan. La escritura a mano no se lee.</translation>
    </message>
    <message>
        <source>Finds passages in German, French, Spanish, Italian, Japanese, Chinese… by what they mean, not only by their words. Switching rebuilds the index in the background while the current one goes on answering by its words; indexing takes about half as long again from then on.</source>
        <translation>Encuentra pasajes en alemán, francés, español, italiano, japonés, chino… por lo que significan, no solo por sus palabras. Cambiarlo reconstruye el índice en segundo plano mientras el actual sigue respondiendo por sus palabras; a partir de entonces, indexar tarda aproximadamente la mitad más.</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Ajustes</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Carpetas vigiladas</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>Añadir…</translation>
    </message>
    <message>
        <source>Add folder</source>
        <translation>Añadir carpeta</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Quitar</translation>
    </message>
    <message>
        <source>Remove folder</source>
        <translation>Quitar la carpeta</translation>
    </message>
    <message>
        <source>Built in: Gemma 3 270M</source>
        <translation>Integrado: Gemma 3 270M</translation>
    </message>
    <message>
        <source>Model file</source>
        <translation>Archivo de modelo</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Elegir…</translation>
    </message>
    <message>
        <source>Choose a model file</source>
        <translation>Elegir un archivo de modelo</translation>
    </message>
    <message>
        <source>Use built-in</source>
        <translation>Usar el integrado</translation>
    </message>
    <message>
        <source>Use the built-in model</source>
        <translation>Usar el modelo integrado</translation>
    </message>
    <message>
        <source>Models found on this computer</source>
        <translation>Modelos encontrados en este ordenador</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Origen</translation>
    </message>
    <message>
        <source>Quantisation</source>
        <translation>Cuantización</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Tamaño</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memoria</translation>
    </message>
    <message>
        <source>Looking for models of LM Studio, Ollama, GPT4All, Jan…</source>
        <translation>Buscando modelos de LM Studio, Ollama, GPT4All, Jan…</translation>
    </message>
    <message>
        <source>Automatic ({n})</source>
        <translation>Automático ({n})</translation>
    </message>
    <message>
        <source>Processor threads</source>
        <translation>Hilos del procesador</translation>
    </message>
    <message>
        <source>Text the model reads at once</source>
        <translation>Texto que el modelo lee de una vez</translation>
    </message>
    <message>
        <source>Sources per answer</source>
        <translation>Fuentes por respuesta</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR (on this computer, offline)</source>
        <translation>Leer las páginas escaneadas con OCR (en este ordenador, sin conexión)</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR</source>
        <translation>Leer las páginas escaneadas con OCR</translation>
    </message>
    <message>
        <source>My documents are in several languages</source>
        <translation>Mis documentos están en varios idiomas</translation>
    </message>
    <message>
        <source>Watched folders:</source>
        <translation>Carpetas vigiladas:</translation>
    </message>
    <message>
        <source>Answer model:</source>
        <translation>Modelo de respuesta:</translation>
    </message>
    <message>
        <source>Models on this computer:</source>
        <translation>Modelos en este ordenador:</translation>
    </message>
    <message>
        <source>Processor threads:</source>
        <translation>Hilos del procesador:</translation>
    </message>
    <message>
        <source>Text read at once:</source>
        <translation>Texto leído de una vez:</translation>
    </message>
    <message>
        <source>Sources per answer:</source>
        <translation>Fuentes por respuesta:</translation>
    </message>
    <message>
        <source>Scanned PDFs:</source>
        <translation>PDF escaneados:</translation>
    </message>
    <message>
        <source>Languages:</source>
        <translation>Idiomas:</translation>
    </message>
    <message>
        <source>The more text the model reads at once, the more sources it can read, and the more memory it needs. Removing a folder removes its documents from the index, never from your disk.</source>
        <translation>Cuanto más texto lee el modelo de una vez, más fuentes puede leer y más memoria necesita. Quitar una carpeta quita sus documentos del índice, nunca de su disco.</translation>
    </message>
    <message>
        <source>&amp;General</source>
        <translation>&amp;General</translation>
    </message>
    <message>
        <source>&amp;Team library</source>
        <translation>Biblioteca del &amp;equipo</translation>
    </message>
    <message>
        <source>Add a folder of documents</source>
        <translation>Añadir una carpeta de documentos</translation>
    </message>
    <message>
        <source>Choose a GGUF model</source>
        <translation>Elegir un modelo GGUF</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>Modelos GGUF (*.gguf);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>,</source>
        <comment>thousands separator</comment>
        <translation>.</translation>
    </message>
    <message>
        <source>word pieces, about {words} words</source>
        <translation>fragmentos de palabra, unas {words} palabras</translation>
    </message>
    <message>
        <source>Could not look for other apps&apos; models: {why}</source>
        <translation>No se pudieron buscar los modelos de otras aplicaciones: {why}</translation>
    </message>
    <message>
        <source>No models found in the folders of LM Studio, Ollama, GPT4All, Jan or llama.cpp. Choose a .gguf file instead.</source>
        <translation>No se encontraron modelos en las carpetas de LM Studio, Ollama, GPT4All, Jan o llama.cpp. Elija un archivo .gguf en su lugar.</translation>
    </message>
    <message>
        <source>Downloaded by other apps; choose one to use it.</source>
        <translation>Descargados por otras aplicaciones; elija uno para usarlo.</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>cabe</translation>
    </message>
    <message>
        <source>too large</source>
        <translation>demasiado grande</translation>
    </message>
    <message>
        <source>Needs about {needed} of memory; {free} is free now.</source>
        <translation>Necesita unos {needed} de memoria; ahora hay {free} libres.</translation>
    </message>
    <message>
        <source>The model file {path} does not exist.</source>
        <translation>El archivo de modelo {path} no existe.</translation>
    </message>
    <message>
        <source>{path} is not a GGUF model file.</source>
        <translation>{path} no es un archivo de modelo GGUF.</translation>
    </message>
    <message>
        <source>Remove folders from the library?</source>
        <translation>¿Quitar carpetas de la biblioteca?</translation>
    </message>
    <message>
        <source>These folders will no longer be watched, and their documents will be removed from the index (the files on your disk are not touched):</source>
        <translation>Estas carpetas dejarán de vigilarse y sus documentos se quitarán del índice (los archivos de su disco no se tocan):</translation>
    </message>
</context>
<context>
    <name>SourcePane</name>
    <message>
        <source>Sources</source>
        <translation>Fuentes</translation>
    </message>
    <message>
        <source>Sources of the answer</source>
        <translation>Fuentes de la respuesta</translation>
    </message>
    <message>
        <source>Page shown</source>
        <translation>Página mostrada</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>Página anterior</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>Página siguiente</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>Alejar</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>Acercar</translation>
    </message>
    <message>
        <source>Open in system viewer</source>
        <translation>Abrir en el visor del sistema</translation>
    </message>
    <message>
        <source>Open this PDF in your usual PDF viewer</source>
        <translation>Abrir este PDF en su visor de PDF habitual</translation>
    </message>
    <message>
        <source>Close page</source>
        <translation>Cerrar la página</translation>
    </message>
    <message>
        <source>Close this page</source>
        <translation>Cerrar esta página</translation>
    </message>
    <message>
        <source>PDF page</source>
        <translation>Página PDF</translation>
    </message>
    <message>
        <source>Cited passage</source>
        <translation>Pasaje citado</translation>
    </message>
    <message>
        <source>No page shown</source>
        <translation>Ninguna página mostrada</translation>
    </message>
    <message>
        <source>Click a source, or a number like [1] in an answer, to see the page it came from.</source>
        <translation>Haga clic en una fuente, o en un número como [1] en una respuesta, para ver la página de la que procede.</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>Abriendo {name}…</translation>
    </message>
    <message>
        <source>This PDF cannot be opened ({why}): {path}</source>
        <translation>No se puede abrir este PDF ({why}): {path}</translation>
    </message>
    <message>
        <source>Open this document in the program your system opens it with</source>
        <translation>Abrir este documento con el programa con el que lo abre su sistema</translation>
    </message>
    <message>
        <source>{name} — page {page} of {total}</source>
        <translation>{name} — página {page} de {total}</translation>
    </message>
    <message>
        <source>(printed {label})</source>
        <translation>(impresa {label})</translation>
    </message>
    <message>
        <source>No program on this computer is set up to open {name}; the file is {path}.</source>
        <translation>Ningún programa de este ordenador está configurado para abrir {name}; el archivo es {path}.</translation>
    </message>
</context>
<context>
    <name>TeamLibraryBox</name>
    <message>
        <source>A library your team keeps on object storage (S3, MinIO, Ceph), searched beside yours and never written from here; its sources say “Team:”. Keys come from the AWS variables, the profile named here or the system keyring, and are never saved in these settings.</source>
        <translation>Una biblioteca que su equipo guarda en almacenamiento de objetos (S3, MinIO, Ceph), en la que se busca junto a la suya y en la que nunca se escribe desde aquí; sus fuentes llevan «Team:». Las claves proceden de las variables de AWS, del perfil indicado aquí o del llavero del sistema, y nunca se guardan en estos ajustes.</translation>
    </message>
    <message>
        <source>s3://bucket/path (empty: none)</source>
        <translation>s3://bucket/ruta (vacío: ninguna)</translation>
    </message>
    <message>
        <source>Team library URI</source>
        <translation>URI de la biblioteca del equipo</translation>
    </message>
    <message>
        <source>default profile</source>
        <translation>perfil predeterminado</translation>
    </message>
    <message>
        <source>Team library AWS profile</source>
        <translation>Perfil de AWS de la biblioteca del equipo</translation>
    </message>
    <message>
        <source>AWS, or http://nas.office:9000 for MinIO</source>
        <translation>AWS, o http://nas.office:9000 para MinIO</translation>
    </message>
    <message>
        <source>Team library Endpoint</source>
        <translation>Punto de conexión de la biblioteca del equipo</translation>
    </message>
    <message>
        <source>from the profile, or us-east-1</source>
        <translation>del perfil, o us-east-1</translation>
    </message>
    <message>
        <source>Team library Region</source>
        <translation>Región de la biblioteca del equipo</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>Dirección:</translation>
    </message>
    <message>
        <source>Profile:</source>
        <translation>Perfil:</translation>
    </message>
    <message>
        <source>Endpoint:</source>
        <translation>Punto de conexión:</translation>
    </message>
    <message>
        <source>Region:</source>
        <translation>Región:</translation>
    </message>
    <message>
        <source>The team library&apos;s address must start with s3:// (not {uri}).</source>
        <translation>La dirección de la biblioteca del equipo debe empezar por s3:// (no {uri}).</translation>
    </message>
    <message>
        <source>The team library&apos;s endpoint must start with http:// or https:// ({endpoint}).</source>
        <translation>El punto de conexión de la biblioteca del equipo debe empezar por http:// o https:// ({endpoint}).</translation>
    </message>
</context>
<context>
    <name>TextView</name>
    <message>
        <source>Document text</source>
        <translation>Texto del documento</translation>
    </message>
    <message>
        <source>This document cannot be opened ({why}): {path}</source>
        <translation>No se puede abrir este documento ({why}): {path}</translation>
    </message>
</context>
<context>
    <name>Words</name>
    <message>
        <source>Written by the model from the sources</source>
        <translation>Escrito por el modelo a partir de las fuentes</translation>
    </message>
    <message>
        <source>Written by {model} from the sources</source>
        <translation>Escrito por {model} a partir de las fuentes</translation>
    </message>
    <message>
        <source>Listing documents</source>
        <translation>Lista de documentos</translation>
    </message>
    <message>
        <source>Outline of the document, in its own sentences</source>
        <translation>Esquema del documento, con sus propias frases</translation>
    </message>
    <message>
        <source>Summary written by the model; below it, the outline in the document&apos;s own sentences</source>
        <translation>Resumen escrito por el modelo; debajo, el esquema con las frases del propio documento</translation>
    </message>
    <message>
        <source>Summary written by {model}; below it, the outline in the document&apos;s own sentences</source>
        <translation>Resumen escrito por {model}; debajo, el esquema con las frases del propio documento</translation>
    </message>
    <message>
        <source>From your documents&apos; own sentences</source>
        <translation>A partir de las frases de sus propios documentos</translation>
    </message>
    <message>
        <source>p. {page}</source>
        <comment>a page, short</comment>
        <translation>pág. {page}</translation>
    </message>
    <message>
        <source>page {page}</source>
        <translation>página {page}</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>El modelo respondió con palabras que sus fuentes no contienen, a partir de lo que sabe y no de sus documentos, así que se muestran en su lugar las frases de las propias fuentes.</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>El modelo respondió con palabras que sus fuentes no contienen, a partir de lo que sabe y no de sus documentos, así que su respuesta no se muestra.</translation>
    </message>
    <message>
        <source>The model found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>El modelo no encontró ninguna respuesta en las fuentes, así que se muestran en su lugar las frases de ellas que parecen responder.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>{model} respondió con palabras que sus fuentes no contienen, a partir de lo que sabe y no de sus documentos, así que se muestran en su lugar las frases de las propias fuentes.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>{model} respondió con palabras que sus fuentes no contienen, a partir de lo que sabe y no de sus documentos, así que su respuesta no se muestra.</translation>
    </message>
    <message>
        <source>{model} found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>{model} no encontró ninguna respuesta en las fuentes, así que se muestran en su lugar las frases de ellas que parecen responder.</translation>
    </message>
    <message>
        <source>The model&apos;s answer said {words}, which its sources do not, so their own sentences are shown instead.</source>
        <translation>La respuesta del modelo decía {words}, algo que sus fuentes no dicen, así que se muestran en su lugar las frases de las propias fuentes.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} does not appear in its sources.</source>
        <translation>Compruebe esta respuesta: {figures} no aparece en sus fuentes.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} do not appear in its sources.</source>
        <translation>Compruebe esta respuesta: {figures} no aparecen en sus fuentes.</translation>
    </message>
    <message>
        <source>Cited [{n}]: its words are there, not in {sources} as the model wrote.</source>
        <translation>Citado [{n}]: sus palabras están ahí, no en {sources} como escribió el modelo.</translation>
    </message>
    <message>
        <source>as you chose</source>
        <translation>según su elección</translation>
    </message>
    <message>
        <source>it asks about one document but names none</source>
        <translation>la pregunta trata de un documento pero no nombra ninguno</translation>
    </message>
    <message>
        <source>asks for a summary or an outline</source>
        <translation>pide un resumen o un esquema</translation>
    </message>
    <message>
        <source>asks for a summary</source>
        <translation>pide un resumen</translation>
    </message>
    <message>
        <source>asks what a document is about</source>
        <translation>pregunta de qué trata un documento</translation>
    </message>
    <message>
        <source>asks for a document&apos;s main points</source>
        <translation>pide los puntos principales de un documento</translation>
    </message>
    <message>
        <source>asks for the contents or the structure</source>
        <translation>pide el contenido o la estructura</translation>
    </message>
    <message>
        <source>asks what a part or a document covers</source>
        <translation>pregunta qué trata una parte o un documento</translation>
    </message>
    <message>
        <source>asks to read a document for the user</source>
        <translation>pide leer un documento por usted</translation>
    </message>
    <message>
        <source>asks which documents</source>
        <translation>pregunta qué documentos</translation>
    </message>
    <message>
        <source>counts documents</source>
        <translation>cuenta documentos</translation>
    </message>
    <message>
        <source>lists documents</source>
        <translation>enumera documentos</translation>
    </message>
    <message>
        <source>asks whether any document has it</source>
        <translation>pregunta si algún documento lo contiene</translation>
    </message>
    <message>
        <source>asks about the library or a collection</source>
        <translation>pregunta por la biblioteca o una colección</translation>
    </message>
    <message>
        <source>Answering from passages</source>
        <translation>Respuesta a partir de pasajes</translation>
    </message>
    <message>
        <source>Outline of {name}</source>
        <translation>Esquema de {name}</translation>
    </message>
    <message>
        <source>Your library is now read by the multilingual embedder (Settings &gt; “My documents are in several languages”), and its index was made by the English one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Su biblioteca ahora la lee el modelo de incrustaciones multilingüe (Ajustes &gt; «Mis documentos están en varios idiomas»), pero su índice lo creó el modelo inglés, así que hay que reconstruirlo. Hasta entonces, solo se busca por sus palabras.</translation>
    </message>
    <message>
        <source>Your library is read by the English embedder again, and its index was made by the multilingual one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Su biblioteca vuelve a leerla el modelo de incrustaciones inglés, pero su índice lo creó el multilingüe, así que hay que reconstruirlo. Hasta entonces, solo se busca por sus palabras.</translation>
    </message>
    <message>
        <source>A rebuild should take about 1 minute; the current index keeps answering meanwhile.</source>
        <translation>La reconstrucción debería tardar alrededor de 1 minuto; el índice actual sigue respondiendo mientras tanto.</translation>
    </message>
    <message>
        <source>A rebuild should take about {minutes} minutes; the current index keeps answering meanwhile.</source>
        <translation>La reconstrucción debería tardar alrededor de {minutes} minutos; el índice actual sigue respondiendo mientras tanto.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Desktop RAG is already running</source>
        <translation>Desktop RAG ya se está ejecutando</translation>
    </message>
</context>
</TS>
