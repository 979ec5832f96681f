<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
<context>
    <name>ChatPane</name>
    <message>
        <source>Show the documents&apos; own sentences</source>
        <translation>Eigene Sätze der Dokumente zeigen</translation>
    </message>
    <message>
        <source>Finding the documents&apos; own sentences…</source>
        <translation>Die eigenen Sätze der Dokumente werden gesucht…</translation>
    </message>
    <message>
        <source>None of the sources&apos; sentences answers it closely enough.</source>
        <translation>Keiner der Sätze der Quellen beantwortet sie genau genug.</translation>
    </message>
    <message>
        <source>{n}th</source>
        <translation>{n}.</translation>
    </message>
    <message>
        <source>{nth} best match for your words</source>
        <translation>an {nth} Stelle nach Ihren Wörtern</translation>
    </message>
    <message>
        <source>none of your words</source>
        <translation>keines Ihrer Wörter</translation>
    </message>
    <message>
        <source>{nth} closest in meaning</source>
        <translation>an {nth} Stelle nach der Bedeutung</translation>
    </message>
    <message>
        <source>not among the closest in meaning</source>
        <translation>nach der Bedeutung nicht unter den nächsten</translation>
    </message>
    <message>
        <source>moved up for its best sentence</source>
        <translation>wegen seines besten Satzes nach oben gerückt</translation>
    </message>
    <message>
        <source>moved down: {why}</source>
        <translation>nach unten gerückt: {why}</translation>
    </message>
    <message>
        <source>Show the model&apos;s answer</source>
        <translation>Antwort des Modells zeigen</translation>
    </message>
    <message>
        <source>Show {model}&apos;s answer</source>
        <translation>Antwort von {model} zeigen</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <source>Answer status</source>
        <translation>Status der Antwort</translation>
    </message>
    <message>
        <source>Ask a question about your documents…</source>
        <translation>Stellen Sie eine Frage zu Ihren Dokumenten…</translation>
    </message>
    <message>
        <source>Enter sends the question; Shift+Enter starts a new line</source>
        <translation>Eingabe sendet die Frage; Umschalt+Eingabe beginnt eine neue Zeile</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Frage</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Fragen</translation>
    </message>
    <message>
        <source>Send the question (Enter)</source>
        <translation>Frage senden (Eingabe)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Stopp</translation>
    </message>
    <message>
        <source>Stop answering</source>
        <translation>Antwort stoppen</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>Antwort stoppen (Esc)</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Umfang</translation>
    </message>
    <message>
        <source>Clear the scope</source>
        <translation>Umfang zurücksetzen</translation>
    </message>
    <message>
        <source>Ask the whole library again</source>
        <translation>Wieder die ganze Bibliothek fragen</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Ändern</translation>
    </message>
    <message>
        <source>Change the scope</source>
        <translation>Umfang ändern</translation>
    </message>
    <message>
        <source>Answer from a saved collection, or from all documents</source>
        <translation>Aus einer gespeicherten Sammlung antworten oder aus allen Dokumenten</translation>
    </message>
    <message>
        <source>All documents</source>
        <translation>Alle Dokumente</translation>
    </message>
    <message>
        <source>Answering from: {scope}</source>
        <translation>Antwortet aus: {scope}</translation>
    </message>
    <message>
        <source>Ask a question about {scope}…</source>
        <translation>Stellen Sie eine Frage zu {scope}…</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Denke nach…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>Gestoppt.</translation>
    </message>
    <message>
        <source>Copy answer</source>
        <translation>Antwort kopieren</translation>
    </message>
    <message>
        <source>Hide ranking</source>
        <translation>Rangfolge ausblenden</translation>
    </message>
    <message>
        <source>Why these?</source>
        <translation>Warum diese?</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>nicht erfasst</translation>
    </message>
    <message>
        <source>Hide the figures</source>
        <translation>Zahlen ausblenden</translation>
    </message>
    <message>
        <source>Show the search&apos;s figures</source>
        <translation>Zahlen der Suche zeigen</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Quellen</translation>
    </message>
    <message>
        <source>In the sources&apos; own words</source>
        <translation>In den eigenen Worten der Quellen</translation>
    </message>
    <message>
        <source>Your library starts with the Desktop RAG user guide. Ask it something:</source>
        <translation>Ihre Bibliothek beginnt mit dem Benutzerhandbuch von Desktop RAG. Fragen Sie es etwas:</translation>
    </message>
    <message>
        <source>Ask anything about the {n} documents in your library. For example:</source>
        <translation>Fragen Sie alles zu den {n} Dokumenten in Ihrer Bibliothek. Zum Beispiel:</translation>
    </message>
    <message>
        <source>Ask anything about the documents in your library. For example:</source>
        <translation>Fragen Sie alles zu den Dokumenten in Ihrer Bibliothek. Zum Beispiel:</translation>
    </message>
    <message>
        <source>Ask your documents</source>
        <translation>Fragen Sie Ihre Dokumente</translation>
    </message>
    <message>
        <source>Add documents by dropping files or folders on this window, or with &lt;i&gt;Add folder&lt;/i&gt; (Ctrl+O). Answers cite their sources as [1], [2]…: click one to see the page. Everything stays on this computer.</source>
        <translation>Fügen Sie Dokumente hinzu, indem Sie Dateien oder Ordner auf dieses Fenster ziehen, oder mit &lt;i&gt;Ordner hinzufügen&lt;/i&gt; (Strg+O). Antworten nennen ihre Quellen als [1], [2]…: Klicken Sie auf eine, um die Seite zu sehen. Alles bleibt auf diesem Computer.</translation>
    </message>
</context>
<context>
    <name>ConversationsModel</name>
    <message>
        <source>New conversation</source>
        <translation>Neue Unterhaltung</translation>
    </message>
    <message>
        <source>1 question</source>
        <translation>1 Frage</translation>
    </message>
    <message>
        <source>{n} questions</source>
        <translation>{n} Fragen</translation>
    </message>
</context>
<context>
    <name>ConversationsPane</name>
    <message>
        <source>New</source>
        <translation>Neu</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>Neue Unterhaltung beginnen (Strg+N)</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>Neue Unterhaltung</translation>
    </message>
    <message>
        <source>Your conversations will be listed here.</source>
        <translation>Ihre Unterhaltungen werden hier aufgelistet.</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Unterhaltungen</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Unterhaltung löschen</translation>
    </message>
</context>
<context>
    <name>DocumentListModel</name>
    <message>
        <source>Document</source>
        <translation>Dokument</translation>
    </message>
    <message>
        <source>Matching passages</source>
        <translation>Passende Textstellen</translation>
    </message>
    <message>
        <source>Best page</source>
        <translation>Beste Seite</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Ordner</translation>
    </message>
</context>
<context>
    <name>DocumentListPanel</name>
    <message>
        <source>Documents found</source>
        <translation>Gefundene Dokumente</translation>
    </message>
    <message>
        <source>Documents that answer the question</source>
        <translation>Dokumente, die die Frage beantworten</translation>
    </message>
    <message>
        <source>Click a document to open it at its best passage</source>
        <translation>Klicken Sie auf ein Dokument, um es an seiner besten Textstelle zu öffnen</translation>
    </message>
</context>
<context>
    <name>DocumentsModel</name>
    <message>
        <source>Queued</source>
        <translation>Wartend</translation>
    </message>
    <message>
        <source>Indexing…</source>
        <translation>Wird indexiert…</translation>
    </message>
    <message>
        <source>Indexed</source>
        <translation>Indexiert</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Removed from the index</source>
        <translation>Aus dem Index entfernt</translation>
    </message>
    <message>
        <source>Indexing</source>
        <translation>Indexierung</translation>
    </message>
    <message>
        <source>Removed</source>
        <translation>Entfernt</translation>
    </message>
    <message>
        <source>{pages} pages, read with OCR</source>
        <translation>{pages} Seiten, mit Texterkennung gelesen</translation>
    </message>
    <message>
        <source>{pages} pages, some read with OCR</source>
        <translation>{pages} Seiten, einige mit Texterkennung gelesen</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>Seiten</translation>
    </message>
    <message>
        <source>Passages</source>
        <translation>Textstellen</translation>
    </message>
    <message>
        <source>1 section</source>
        <translation>1 Abschnitt</translation>
    </message>
    <message>
        <source>{n} sections</source>
        <translation>{n} Abschnitte</translation>
    </message>
    <message>
        <source>1 passage indexed</source>
        <translation>1 Textstelle indexiert</translation>
    </message>
    <message>
        <source>{n} passages indexed</source>
        <translation>{n} Textstellen indexiert</translation>
    </message>
</context>
<context>
    <name>DocumentsPane</name>
    <message>
        <source>Add folder…</source>
        <translation>Ordner hinzufügen…</translation>
    </message>
    <message>
        <source>Watch a folder of documents (Ctrl+O)</source>
        <translation>Einen Ordner mit Dokumenten überwachen (Strg+O)</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Stop watching the selected folder</source>
        <translation>Ausgewählten Ordner nicht mehr überwachen</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Überwachte Ordner</translation>
    </message>
    <message>
        <source>Filter files</source>
        <translation>Dateien filtern</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>Dokumente</translation>
    </message>
    <message>
        <source>Selected file</source>
        <translation>Ausgewählte Datei</translation>
    </message>
    <message>
        <source>Indexing progress</source>
        <translation>Fortschritt der Indexierung</translation>
    </message>
    <message>
        <source>Library summary</source>
        <translation>Übersicht der Bibliothek</translation>
    </message>
    <message>
        <source>Indexing status</source>
        <translation>Status der Indexierung</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Pause indexing</source>
        <translation>Indexierung pausieren</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop indexing; what is done is kept</source>
        <translation>Indexierung beenden; das Erledigte bleibt erhalten</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>Neu prüfen</translation>
    </message>
    <message>
        <source>Check the watched folders for changes</source>
        <translation>Überwachte Ordner auf Änderungen prüfen</translation>
    </message>
    <message>
        <source>(not watched: checked {every})</source>
        <translation>(nicht überwacht: geprüft {every})</translation>
    </message>
    <message>
        <source>Folder {path}</source>
        <translation>Ordner {path}</translation>
    </message>
    <message>
        <source>Ask about these</source>
        <translation>Zu diesen fragen</translation>
    </message>
    <message>
        <source>Ask about this document</source>
        <translation>Zu diesem Dokument fragen</translation>
    </message>
    <message>
        <source>A new conversation that answers from these documents only</source>
        <translation>Eine neue Unterhaltung, die nur aus diesen Dokumenten antwortet</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>Im Ordner anzeigen</translation>
    </message>
    <message>
        <source>Outline</source>
        <translation>Gliederung</translation>
    </message>
    <message>
        <source>Its headings, each with its most central sentences and their pages, in the chat</source>
        <translation>Seine Überschriften, jeweils mit den zentralsten Sätzen und deren Seiten, im Chat</translation>
    </message>
    <message>
        <source>Enter password…</source>
        <translation>Passwort eingeben…</translation>
    </message>
    <message>
        <source>Include again</source>
        <translation>Wieder aufnehmen</translation>
    </message>
    <message>
        <source>Index again</source>
        <translation>Erneut indexieren</translation>
    </message>
    <message>
        <source>Read with OCR</source>
        <translation>Mit Texterkennung lesen</translation>
    </message>
    <message>
        <source>For a PDF whose text comes out as garbage: read every page from its image instead. Remembered for this file.</source>
        <translation>Für ein PDF, dessen Text als Zeichensalat herauskommt: Jede Seite stattdessen aus ihrem Bild lesen. Wird für diese Datei gespeichert.</translation>
    </message>
    <message>
        <source>Remove from the index</source>
        <translation>Aus dem Index entfernen</translation>
    </message>
    <message>
        <source>The reader said: {words}</source>
        <translation>Der Leser meldete: {words}</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>Ausblenden</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Looking for changes…</source>
        <translation>Suche nach Änderungen…</translation>
    </message>
    <message>
        <source>{done} of {total} files · {pages} pages</source>
        <translation>{done} von {total} Dateien · {pages} Seiten</translation>
    </message>
    <message>
        <source>about {eta} left</source>
        <translation>noch etwa {eta}</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Carry on indexing</source>
        <translation>Indexierung fortsetzen</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Pausiert</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Bibliothek wird geöffnet…</translation>
    </message>
    <message>
        <source>No documents yet. Drop files or a folder on this window, or add a folder.</source>
        <translation>Noch keine Dokumente. Ziehen Sie Dateien oder einen Ordner auf dieses Fenster, oder fügen Sie einen Ordner hinzu.</translation>
    </message>
    <message>
        <source>1 document · {pages} pages indexed</source>
        <translation>1 Dokument · {pages} Seiten indexiert</translation>
    </message>
    <message>
        <source>{n} documents · {pages} pages indexed</source>
        <translation>{n} Dokumente · {pages} Seiten indexiert</translation>
    </message>
    <message>
        <source>{n} could not be read</source>
        <translation>{n} nicht lesbar</translation>
    </message>
    <message>
        <source>{n} waiting</source>
        <translation>{n} wartend</translation>
    </message>
    <message>
        <source>Indexing cancelled; what was done is kept.</source>
        <translation>Indexierung abgebrochen; das Erledigte bleibt erhalten.</translation>
    </message>
</context>
<context>
    <name>KindBar</name>
    <message>
        <source>Answer from &amp;passages</source>
        <translation>Aus &amp;Textstellen antworten</translation>
    </message>
    <message>
        <source>Answer with the &amp;document&apos;s outline</source>
        <translation>Mit der &amp;Gliederung des Dokuments antworten</translation>
    </message>
    <message>
        <source>Answer with a &amp;list of documents</source>
        <translation>Mit einer &amp;Liste von Dokumenten antworten</translation>
    </message>
    <message>
        <source>Kind of question</source>
        <translation>Art der Frage</translation>
    </message>
    <message>
        <source>How the question was taken, by plain rules; Answer as asks it again as another kind</source>
        <translation>Wie die Frage nach einfachen Regeln verstanden wurde; „Antworten als“ stellt sie erneut als andere Art</translation>
    </message>
    <message>
        <source>Answer as</source>
        <translation>Antworten als</translation>
    </message>
    <message>
        <source>Answer as another kind of question</source>
        <translation>Als andere Art von Frage beantworten</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Sho&amp;w the model&apos;s answer</source>
        <translation>Antwort des Modells &amp;zeigen</translation>
    </message>
    <message>
        <source>Sho&amp;w {model}&apos;s answer</source>
        <translation>Antwort von {model} &amp;zeigen</translation>
    </message>
    <message>
        <source>Sho&amp;w the documents&apos; own sentences</source>
        <translation>Eigene Sätze der Dokumente &amp;zeigen</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Neue Unterhaltung</translation>
    </message>
    <message>
        <source>Add &amp;folder…</source>
        <translation>&amp;Ordner hinzufügen…</translation>
    </message>
    <message>
        <source>Add &amp;documents…</source>
        <translation>&amp;Dokumente hinzufügen…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Rebuild index…</source>
        <translation>Index &amp;neu aufbauen…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Stop answering</source>
        <translation>Antwort &amp;stoppen</translation>
    </message>
    <message>
        <source>&amp;Copy last answer</source>
        <translation>Letzte Antwort &amp;kopieren</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>&amp;Benutzerhandbuch</translation>
    </message>
    <message>
        <source>&amp;About Desktop RAG</source>
        <translation>&amp;Über Desktop RAG</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Bibliothek</translation>
    </message>
    <message>
        <source>Show your documents and conversations (Ctrl+L)</source>
        <translation>Ihre Dokumente und Unterhaltungen anzeigen (Strg+L)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>&amp;Chat</translation>
    </message>
    <message>
        <source>&amp;Answer as</source>
        <translation>&amp;Antworten als</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Bibliothek wird geöffnet…</translation>
    </message>
    <message>
        <source>Library state</source>
        <translation>Status der Bibliothek</translation>
    </message>
    <message>
        <source>Search model state</source>
        <translation>Status des Suchmodells</translation>
    </message>
    <message>
        <source>Answer model state</source>
        <translation>Status des Antwortmodells</translation>
    </message>
    <message>
        <source>Library: cannot be opened</source>
        <translation>Bibliothek: kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>The library cannot be opened</source>
        <translation>Die Bibliothek kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Library: needs rebuilding</source>
        <translation>Bibliothek: muss neu aufgebaut werden</translation>
    </message>
    <message>
        <source>Most of this library is in {language}: Settings &gt; “My documents are in several languages” finds its passages better.</source>
        <translation>Der Großteil dieser Bibliothek ist auf {language}: Einstellungen &gt; „Meine Dokumente sind in mehreren Sprachen“ findet ihre Passagen besser.</translation>
    </message>
    <message>
        <source>German</source>
        <translation>Deutsch</translation>
    </message>
    <message>
        <source>French</source>
        <translation>Französisch</translation>
    </message>
    <message>
        <source>Spanish</source>
        <translation>Spanisch</translation>
    </message>
    <message>
        <source>Italian</source>
        <translation>Italienisch</translation>
    </message>
    <message>
        <source>Portuguese</source>
        <translation>Portugiesisch</translation>
    </message>
    <message>
        <source>Dutch</source>
        <translation>Niederländisch</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>Chinesisch</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation>Japanisch</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation>Koreanisch</translation>
    </message>
    <message>
        <source>The index is built again from every watched folder, beside the current one, which keeps answering until the new one is complete.</source>
        <translation>Der Index wird aus allen überwachten Ordnern neu aufgebaut, neben dem aktuellen, der weiter antwortet, bis der neue fertig ist.</translation>
    </message>
    <message>
        <source>Rebuild the index?</source>
        <translation>Index neu aufbauen?</translation>
    </message>
    <message>
        <source>Rebuild now? Your files are not touched.</source>
        <translation>Jetzt neu aufbauen? Ihre Dateien bleiben unberührt.</translation>
    </message>
    <message>
        <source>The index was not rebuilt: it answers as it was built, and changes to your documents wait for a rebuild (File &gt; Rebuild index).</source>
        <translation>Der Index wurde nicht neu aufgebaut: Er antwortet so, wie er aufgebaut wurde, und Änderungen an Ihren Dokumenten warten auf einen Neuaufbau (Datei &gt; Index neu aufbauen).</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is being indexed.</source>
        <translation>Willkommen! Ihr Bibliotheksordner ist {folder}; das Benutzerhandbuch darin wird gerade indexiert.</translation>
    </message>
    <message>
        <source>Found by words; computing vectors</source>
        <translation>Nach Wörtern gefunden; Vektoren werden berechnet</translation>
    </message>
    <message>
        <source>Indexing {done} of {total} files</source>
        <translation>Indexiere {done} von {total} Dateien</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is indexed: ask it a question below.</source>
        <translation>Willkommen! Ihr Bibliotheksordner ist {folder}; das Benutzerhandbuch darin ist indexiert: Stellen Sie ihm unten eine Frage.</translation>
    </message>
    <message>
        <source>1 file could not be read; see Documents.</source>
        <translation>1 Datei konnte nicht gelesen werden; siehe Dokumente.</translation>
    </message>
    <message>
        <source>{n} files could not be read; see Documents.</source>
        <translation>{n} Dateien konnten nicht gelesen werden; siehe Dokumente.</translation>
    </message>
    <message>
        <source>Indexing stopped: {why}</source>
        <translation>Indexierung angehalten: {why}</translation>
    </message>
    <message>
        <source>1 document</source>
        <translation>1 Dokument</translation>
    </message>
    <message>
        <source>{n} documents</source>
        <translation>{n} Dokumente</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (indexing)</source>
        <translation>Bibliothek: {documents}, {pages} Seiten (wird indexiert)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (needs rebuilding)</source>
        <translation>Bibliothek: {documents}, {pages} Seiten (muss neu aufgebaut werden)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages</source>
        <translation>Bibliothek: {documents}, {pages} Seiten</translation>
    </message>
    <message>
        <source>Add a folder of documents to watch</source>
        <translation>Einen Ordner mit Dokumenten zum Überwachen hinzufügen</translation>
    </message>
    <message>
        <source>Add documents (they are copied into your library)</source>
        <translation>Dokumente hinzufügen (sie werden in Ihre Bibliothek kopiert)</translation>
    </message>
    <message>
        <source>Documents ({patterns});;PDF files (*.pdf);;All files (*)</source>
        <translation>Dokumente ({patterns});;PDF-Dateien (*.pdf);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Stop watching this folder?</source>
        <translation>Diesen Ordner nicht mehr überwachen?</translation>
    </message>
    <message>
        <source>Its documents will be removed from the index. The files on your disk are not touched.</source>
        <translation>Seine Dokumente werden aus dem Index entfernt. Die Dateien auf Ihrem Datenträger bleiben unberührt.</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Passwort</translation>
    </message>
    <message>
        <source>Password for {name}
(used to read it now; not saved):</source>
        <translation>Passwort für {name}
(wird jetzt zum Lesen verwendet, nicht gespeichert):</translation>
    </message>
    <message>
        <source>The library is still opening; ask again for {name} in a moment.</source>
        <translation>Die Bibliothek wird noch geöffnet; fragen Sie gleich noch einmal nach {name}.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again after the indexing in progress.</source>
        <translation>{name} wird nach der laufenden Indexierung erneut indexiert.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again.</source>
        <translation>{name} wird erneut indexiert.</translation>
    </message>
    <message>
        <source>Search: waiting</source>
        <translation>Suche: wartet</translation>
    </message>
    <message>
        <source>Search: loading…</source>
        <translation>Suche: wird geladen…</translation>
    </message>
    <message>
        <source>Search: ready</source>
        <translation>Suche: bereit</translation>
    </message>
    <message>
        <source>Search: failed</source>
        <translation>Suche: fehlgeschlagen</translation>
    </message>
    <message>
        <source>Search: missing</source>
        <translation>Suche: fehlt</translation>
    </message>
    <message>
        <source>The model that finds passages (MiniLM)</source>
        <translation>Das Modell, das Textstellen findet (MiniLM)</translation>
    </message>
    <message>
        <source>Answers: waiting</source>
        <translation>Antworten: wartet</translation>
    </message>
    <message>
        <source>Answers: loading…</source>
        <translation>Antworten: wird geladen…</translation>
    </message>
    <message>
        <source>Answers: ready</source>
        <translation>Antworten: bereit</translation>
    </message>
    <message>
        <source>Answers: failed</source>
        <translation>Antworten: fehlgeschlagen</translation>
    </message>
    <message>
        <source>Answers: unavailable</source>
        <translation>Antworten: nicht verfügbar</translation>
    </message>
    <message>
        <source>The answer model could not be loaded: {why}</source>
        <translation>Das Antwortmodell konnte nicht geladen werden: {why}</translation>
    </message>
    <message>
        <source>Searching your documents…</source>
        <translation>Ihre Dokumente werden durchsucht…</translation>
    </message>
    <message>
        <source>Building the outline…</source>
        <translation>Gliederung wird erstellt…</translation>
    </message>
    <message>
        <source>Building the outline: {done} of {total} sections (ETA {eta})…</source>
        <translation>Gliederung wird erstellt: {done} von {total} Abschnitten (noch {eta})…</translation>
    </message>
    <message>
        <source>[{n}] is not one of this answer&apos;s sources.</source>
        <translation>[{n}] ist keine der Quellen dieser Antwort.</translation>
    </message>
    <message>
        <source>The documents&apos; own sentences were not found: {why}</source>
        <translation>Die eigenen Sätze der Dokumente wurden nicht gefunden: {why}</translation>
    </message>
    <message>
        <source>The guide is not in {folder}.</source>
        <translation>Das Handbuch ist nicht in {folder}.</translation>
    </message>
    <message>
        <source>{path} cannot be opened ({why}).</source>
        <translation>{path} kann nicht geöffnet werden ({why}).</translation>
    </message>
    <message>
        <source>Answer copied.</source>
        <translation>Antwort kopiert.</translation>
    </message>
    <message>
        <source>About Desktop RAG</source>
        <translation>Über Desktop RAG</translation>
    </message>
    <message>
        <source>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Private answers from your own documents. Everything runs on this computer; nothing is sent anywhere.&lt;/p&gt;&lt;p&gt;Answer model: {model}&lt;br&gt;Data: {data}&lt;/p&gt;</source>
        <translation>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Private Antworten aus Ihren eigenen Dokumenten. Alles läuft auf diesem Computer; nichts wird irgendwohin gesendet.&lt;/p&gt;&lt;p&gt;Antwortmodell: {model}&lt;br&gt;Daten: {data}&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Using the model {name}.</source>
        <translation>Das Modell {name} wird verwendet.</translation>
    </message>
    <message>
        <source>{name} {why}; nothing added.</source>
        <translation>{name} {why}; nichts hinzugefügt.</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>Wait for the current indexing to finish, then rebuild.</source>
        <translation>Warten Sie, bis die aktuelle Indexierung fertig ist, und bauen Sie dann neu auf.</translation>
    </message>
    <message>
        <source>Rebuilding the index from your documents…</source>
        <translation>Der Index wird aus Ihren Dokumenten neu aufgebaut…</translation>
    </message>
    <message>
        <source>The index must be rebuilt before changes can be indexed; they are indexed once it is.</source>
        <translation>Der Index muss neu aufgebaut werden, bevor Änderungen indexiert werden können; danach werden sie indexiert.</translation>
    </message>
    <message>
        <source>The library is still opening; drop the files again in a moment.</source>
        <translation>Die Bibliothek wird noch geöffnet; ziehen Sie die Dateien gleich noch einmal hierher.</translation>
    </message>
    <message>
        <source>The library is still opening.</source>
        <translation>Die Bibliothek wird noch geöffnet.</translation>
    </message>
    <message>
        <source>Answers cannot be composed from the sources here.</source>
        <translation>Antworten können hier nicht aus den Quellen zusammengestellt werden.</translation>
    </message>
    <message>
        <source>The conversation could not be saved: {why}</source>
        <translation>Die Unterhaltung konnte nicht gespeichert werden: {why}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Pages that are only pictures (scans, photos of pages) are read on this computer, up to half a minute a page. Print reads well in English, Chinese, Japanese and the languages written with accents (é, ü, ñ), which are kept. Handwriting is not read.</source>
        <translation>Seiten, die nur aus Bildern bestehen (Scans, Fotos von Seiten), werden auf diesem Computer gelesen, bis zu einer halben Minute pro Seite. Gedruckter Text wird gut gelesen, auf Englisch, Chinesisch, Japanisch und in den Sprachen mit Akzenten (é, ü, ñ), die erhalten bleiben. Handschrift wird nicht gelesen.</translation>
    </message>
    <message>
        <source>Finds passages in German, French, Spanish, Italian, Japanese, Chinese… by what they mean, not only by their words. Switching rebuilds the index in the background while the current one goes on answering by its words; indexing takes about half as long again from then on.</source>
        <translation>Findet Passagen auf Deutsch, Französisch, Spanisch, Italienisch, Japanisch, Chinesisch … nach ihrer Bedeutung, nicht nur nach ihren Wörtern. Das Umschalten baut den Index im Hintergrund neu auf, während der bisherige weiter nach seinen Wörtern antwortet; das Indizieren dauert danach etwa anderthalbmal so lange.</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Überwachte Ordner</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>Hinzufügen…</translation>
    </message>
    <message>
        <source>Add folder</source>
        <translation>Ordner hinzufügen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Remove folder</source>
        <translation>Ordner entfernen</translation>
    </message>
    <message>
        <source>Built in: Gemma 3 270M</source>
        <translation>Integriert: Gemma 3 270M</translation>
    </message>
    <message>
        <source>Model file</source>
        <translation>Modelldatei</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Auswählen…</translation>
    </message>
    <message>
        <source>Choose a model file</source>
        <translation>Modelldatei auswählen</translation>
    </message>
    <message>
        <source>Use built-in</source>
        <translation>Integriertes verwenden</translation>
    </message>
    <message>
        <source>Use the built-in model</source>
        <translation>Das integrierte Modell verwenden</translation>
    </message>
    <message>
        <source>Models found on this computer</source>
        <translation>Auf diesem Computer gefundene Modelle</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>Quantisation</source>
        <translation>Quantisierung</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>Looking for models of LM Studio, Ollama, GPT4All, Jan…</source>
        <translation>Suche nach Modellen von LM Studio, Ollama, GPT4All, Jan…</translation>
    </message>
    <message>
        <source>Automatic ({n})</source>
        <translation>Automatisch ({n})</translation>
    </message>
    <message>
        <source>Processor threads</source>
        <translation>Prozessor-Threads</translation>
    </message>
    <message>
        <source>Text the model reads at once</source>
        <translation>Text, den das Modell auf einmal liest</translation>
    </message>
    <message>
        <source>Sources per answer</source>
        <translation>Quellen pro Antwort</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR (on this computer, offline)</source>
        <translation>Gescannte Seiten mit Texterkennung lesen (auf diesem Computer, offline)</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR</source>
        <translation>Gescannte Seiten mit Texterkennung lesen</translation>
    </message>
    <message>
        <source>My documents are in several languages</source>
        <translation>Meine Dokumente sind in mehreren Sprachen</translation>
    </message>
    <message>
        <source>Watched folders:</source>
        <translation>Überwachte Ordner:</translation>
    </message>
    <message>
        <source>Answer model:</source>
        <translation>Antwortmodell:</translation>
    </message>
    <message>
        <source>Models on this computer:</source>
        <translation>Modelle auf diesem Computer:</translation>
    </message>
    <message>
        <source>Processor threads:</source>
        <translation>Prozessor-Threads:</translation>
    </message>
    <message>
        <source>Text read at once:</source>
        <translation>Auf einmal gelesener Text:</translation>
    </message>
    <message>
        <source>Sources per answer:</source>
        <translation>Quellen pro Antwort:</translation>
    </message>
    <message>
        <source>Scanned PDFs:</source>
        <translation>Gescannte PDFs:</translation>
    </message>
    <message>
        <source>Languages:</source>
        <translation>Sprachen:</translation>
    </message>
    <message>
        <source>The more text the model reads at once, the more sources it can read, and the more memory it needs. Removing a folder removes its documents from the index, never from your disk.</source>
        <translation>Je mehr Text das Modell auf einmal liest, desto mehr Quellen kann es lesen und desto mehr Arbeitsspeicher braucht es. Wenn Sie einen Ordner entfernen, werden seine Dokumente aus dem Index entfernt, nie von Ihrem Datenträger.</translation>
    </message>
    <message>
        <source>&amp;General</source>
        <translation>&amp;Allgemein</translation>
    </message>
    <message>
        <source>&amp;Team library</source>
        <translation>&amp;Team-Bibliothek</translation>
    </message>
    <message>
        <source>Add a folder of documents</source>
        <translation>Einen Ordner mit Dokumenten hinzufügen</translation>
    </message>
    <message>
        <source>Choose a GGUF model</source>
        <translation>GGUF-Modell auswählen</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF-Modelle (*.gguf);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>,</source>
        <comment>thousands separator</comment>
        <translation>.</translation>
    </message>
    <message>
        <source>word pieces, about {words} words</source>
        <translation>Wortteile, etwa {words} Wörter</translation>
    </message>
    <message>
        <source>Could not look for other apps&apos; models: {why}</source>
        <translation>Modelle anderer Apps konnten nicht gesucht werden: {why}</translation>
    </message>
    <message>
        <source>No models found in the folders of LM Studio, Ollama, GPT4All, Jan or llama.cpp. Choose a .gguf file instead.</source>
        <translation>Keine Modelle in den Ordnern von LM Studio, Ollama, GPT4All, Jan oder llama.cpp gefunden. Wählen Sie stattdessen eine .gguf-Datei.</translation>
    </message>
    <message>
        <source>Downloaded by other apps; choose one to use it.</source>
        <translation>Von anderen Apps heruntergeladen; wählen Sie eines aus, um es zu verwenden.</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>passt</translation>
    </message>
    <message>
        <source>too large</source>
        <translation>zu groß</translation>
    </message>
    <message>
        <source>Needs about {needed} of memory; {free} is free now.</source>
        <translation>Benötigt etwa {needed} Arbeitsspeicher; {free} sind gerade frei.</translation>
    </message>
    <message>
        <source>The model file {path} does not exist.</source>
        <translation>Die Modelldatei {path} existiert nicht.</translation>
    </message>
    <message>
        <source>{path} is not a GGUF model file.</source>
        <translation>{path} ist keine GGUF-Modelldatei.</translation>
    </message>
    <message>
        <source>Remove folders from the library?</source>
        <translation>Ordner aus der Bibliothek entfernen?</translation>
    </message>
    <message>
        <source>These folders will no longer be watched, and their documents will be removed from the index (the files on your disk are not touched):</source>
        <translation>Diese Ordner werden nicht mehr überwacht, und ihre Dokumente werden aus dem Index entfernt (die Dateien auf Ihrem Datenträger bleiben unberührt):</translation>
    </message>
</context>
<context>
    <name>SourcePane</name>
    <message>
        <source>Sources</source>
        <translation>Quellen</translation>
    </message>
    <message>
        <source>Sources of the answer</source>
        <translation>Quellen der Antwort</translation>
    </message>
    <message>
        <source>Page shown</source>
        <translation>Angezeigte Seite</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>Vorherige Seite</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>Nächste Seite</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>Verkleinern</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>Vergrößern</translation>
    </message>
    <message>
        <source>Open in system viewer</source>
        <translation>Im Systembetrachter öffnen</translation>
    </message>
    <message>
        <source>Open this PDF in your usual PDF viewer</source>
        <translation>Dieses PDF in Ihrem gewohnten PDF-Betrachter öffnen</translation>
    </message>
    <message>
        <source>Close page</source>
        <translation>Seite schließen</translation>
    </message>
    <message>
        <source>Close this page</source>
        <translation>Diese Seite schließen</translation>
    </message>
    <message>
        <source>PDF page</source>
        <translation>PDF-Seite</translation>
    </message>
    <message>
        <source>Cited passage</source>
        <translation>Zitierte Textstelle</translation>
    </message>
    <message>
        <source>No page shown</source>
        <translation>Keine Seite angezeigt</translation>
    </message>
    <message>
        <source>Click a source, or a number like [1] in an answer, to see the page it came from.</source>
        <translation>Klicken Sie auf eine Quelle oder auf eine Nummer wie [1] in einer Antwort, um die Seite zu sehen, aus der sie stammt.</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>{name} wird geöffnet…</translation>
    </message>
    <message>
        <source>This PDF cannot be opened ({why}): {path}</source>
        <translation>Dieses PDF kann nicht geöffnet werden ({why}): {path}</translation>
    </message>
    <message>
        <source>Open this document in the program your system opens it with</source>
        <translation>Dieses Dokument mit dem Programm öffnen, mit dem Ihr System es öffnet</translation>
    </message>
    <message>
        <source>{name} — page {page} of {total}</source>
        <translation>{name} — Seite {page} von {total}</translation>
    </message>
    <message>
        <source>(printed {label})</source>
        <translation>(gedruckt {label})</translation>
    </message>
    <message>
        <source>No program on this computer is set up to open {name}; the file is {path}.</source>
        <translation>Auf diesem Computer ist kein Programm zum Öffnen von {name} eingerichtet; die Datei ist {path}.</translation>
    </message>
</context>
<context>
    <name>TeamLibraryBox</name>
    <message>
        <source>A library your team keeps on object storage (S3, MinIO, Ceph), searched beside yours and never written from here; its sources say “Team:”. Keys come from the AWS variables, the profile named here or the system keyring, and are never saved in these settings.</source>
        <translation>Eine Bibliothek, die Ihr Team in einem Objektspeicher (S3, MinIO, Ceph) führt: Sie wird neben Ihrer durchsucht und von hier aus nie beschrieben; ihre Quellen tragen „Team:“. Die Schlüssel kommen aus den AWS-Variablen, dem hier genannten Profil oder dem Schlüsselbund des Systems und werden nie in diesen Einstellungen gespeichert.</translation>
    </message>
    <message>
        <source>s3://bucket/path (empty: none)</source>
        <translation>s3://bucket/pfad (leer: keine)</translation>
    </message>
    <message>
        <source>Team library URI</source>
        <translation>URI der Team-Bibliothek</translation>
    </message>
    <message>
        <source>default profile</source>
        <translation>Standardprofil</translation>
    </message>
    <message>
        <source>Team library AWS profile</source>
        <translation>AWS-Profil der Team-Bibliothek</translation>
    </message>
    <message>
        <source>AWS, or http://nas.office:9000 for MinIO</source>
        <translation>AWS, oder http://nas.office:9000 für MinIO</translation>
    </message>
    <message>
        <source>Team library Endpoint</source>
        <translation>Endpunkt der Team-Bibliothek</translation>
    </message>
    <message>
        <source>from the profile, or us-east-1</source>
        <translation>aus dem Profil, oder us-east-1</translation>
    </message>
    <message>
        <source>Team library Region</source>
        <translation>Region der Team-Bibliothek</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>Adresse:</translation>
    </message>
    <message>
        <source>Profile:</source>
        <translation>Profil:</translation>
    </message>
    <message>
        <source>Endpoint:</source>
        <translation>Endpunkt:</translation>
    </message>
    <message>
        <source>Region:</source>
        <translation>Region:</translation>
    </message>
    <message>
        <source>The team library&apos;s address must start with s3:// (not {uri}).</source>
        <translation>Die Adresse der Team-Bibliothek muss mit s3:// beginnen (nicht {uri}).</translation>
    </message>
    <message>
        <source>The team library&apos;s endpoint must start with http:// or https:// ({endpoint}).</source>
        <translation>Der Endpunkt der Team-Bibliothek muss mit http:// oder https:// beginnen ({endpoint}).</translation>
    </message>
</context>
<context>
    <name>TextView</name>
    <message>
        <source>Document text</source>
        <translation>Text des Dokuments</translation>
    </message>
    <message>
        <source>This document cannot be opened ({why}): {path}</source>
        <translation>Dieses Dokument kann nicht geöffnet werden ({why}): {path}</translation>
    </message>
</context>
<context>
    <name>Words</name>
    <message>
        <source>Written by the model from the sources</source>
        <translation>Vom Modell aus den Quellen geschrieben</translation>
    </message>
    <message>
        <source>Written by {model} from the sources</source>
        <translation>Von {model} aus den Quellen geschrieben</translation>
    </message>
    <message>
        <source>Listing documents</source>
        <translation>Liste der Dokumente</translation>
    </message>
    <message>
        <source>Outline of the document, in its own sentences</source>
        <translation>Gliederung des Dokuments, in seinen eigenen Sätzen</translation>
    </message>
    <message>
        <source>Summary written by the model; below it, the outline in the document&apos;s own sentences</source>
        <translation>Vom Modell geschriebene Zusammenfassung; darunter die Gliederung in den eigenen Sätzen des Dokuments</translation>
    </message>
    <message>
        <source>Summary written by {model}; below it, the outline in the document&apos;s own sentences</source>
        <translation>Von {model} geschriebene Zusammenfassung; darunter die Gliederung in den eigenen Sätzen des Dokuments</translation>
    </message>
    <message>
        <source>From your documents&apos; own sentences</source>
        <translation>Aus den eigenen Sätzen Ihrer Dokumente</translation>
    </message>
    <message>
        <source>p. {page}</source>
        <comment>a page, short</comment>
        <translation>S. {page}</translation>
    </message>
    <message>
        <source>page {page}</source>
        <translation>Seite {page}</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>Das Modell hat mit Wörtern geantwortet, die nicht in seinen Quellen stehen, aus eigenem Wissen statt aus Ihren Dokumenten; deshalb werden stattdessen die eigenen Sätze der Quellen gezeigt.</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>Das Modell hat mit Wörtern geantwortet, die nicht in seinen Quellen stehen, aus eigenem Wissen statt aus Ihren Dokumenten; deshalb wird seine Antwort nicht gezeigt.</translation>
    </message>
    <message>
        <source>The model found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>Das Modell hat in den Quellen keine Antwort gefunden; deshalb werden stattdessen die Sätze der Quellen gezeigt, die zu antworten scheinen.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>{model} hat mit Wörtern geantwortet, die nicht in seinen Quellen stehen, aus eigenem Wissen statt aus Ihren Dokumenten; deshalb werden stattdessen die eigenen Sätze der Quellen gezeigt.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>{model} hat mit Wörtern geantwortet, die nicht in seinen Quellen stehen, aus eigenem Wissen statt aus Ihren Dokumenten; deshalb wird seine Antwort nicht gezeigt.</translation>
    </message>
    <message>
        <source>{model} found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>{model} hat in den Quellen keine Antwort gefunden; deshalb werden stattdessen die Sätze der Quellen gezeigt, die zu antworten scheinen.</translation>
    </message>
    <message>
        <source>The model&apos;s answer said {words}, which its sources do not, so their own sentences are shown instead.</source>
        <translation>Die Antwort des Modells nannte {words}, was nicht in ihren Quellen steht; deshalb werden stattdessen die eigenen Sätze der Quellen gezeigt.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} does not appear in its sources.</source>
        <translation>Prüfen Sie diese Antwort: {figures} steht nicht in ihren Quellen.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} do not appear in its sources.</source>
        <translation>Prüfen Sie diese Antwort: {figures} stehen nicht in ihren Quellen.</translation>
    </message>
    <message>
        <source>Cited [{n}]: its words are there, not in {sources} as the model wrote.</source>
        <translation>[{n}] zitiert: Dort stehen ihre Wörter, nicht in {sources}, wie das Modell schrieb.</translation>
    </message>
    <message>
        <source>as you chose</source>
        <translation>wie von Ihnen gewählt</translation>
    </message>
    <message>
        <source>it asks about one document but names none</source>
        <translation>die Frage betrifft ein Dokument, nennt aber keines</translation>
    </message>
    <message>
        <source>asks for a summary or an outline</source>
        <translation>fragt nach einer Zusammenfassung oder Gliederung</translation>
    </message>
    <message>
        <source>asks for a summary</source>
        <translation>fragt nach einer Zusammenfassung</translation>
    </message>
    <message>
        <source>asks what a document is about</source>
        <translation>fragt, worum es in einem Dokument geht</translation>
    </message>
    <message>
        <source>asks for a document&apos;s main points</source>
        <translation>fragt nach den Hauptpunkten eines Dokuments</translation>
    </message>
    <message>
        <source>asks for the contents or the structure</source>
        <translation>fragt nach dem Inhalt oder dem Aufbau</translation>
    </message>
    <message>
        <source>asks what a part or a document covers</source>
        <translation>fragt, was ein Teil oder ein Dokument behandelt</translation>
    </message>
    <message>
        <source>asks to read a document for the user</source>
        <translation>bittet darum, ein Dokument für Sie zu lesen</translation>
    </message>
    <message>
        <source>asks which documents</source>
        <translation>fragt, welche Dokumente</translation>
    </message>
    <message>
        <source>counts documents</source>
        <translation>zählt Dokumente</translation>
    </message>
    <message>
        <source>lists documents</source>
        <translation>listet Dokumente auf</translation>
    </message>
    <message>
        <source>asks whether any document has it</source>
        <translation>fragt, ob ein Dokument es enthält</translation>
    </message>
    <message>
        <source>asks about the library or a collection</source>
        <translation>fragt nach der Bibliothek oder einer Sammlung</translation>
    </message>
    <message>
        <source>Answering from passages</source>
        <translation>Antwort aus Textstellen</translation>
    </message>
    <message>
        <source>Outline of {name}</source>
        <translation>Gliederung von {name}</translation>
    </message>
    <message>
        <source>Your library is now read by the multilingual embedder (Settings &gt; “My documents are in several languages”), and its index was made by the English one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Ihre Bibliothek wird jetzt vom mehrsprachigen Einbettungsmodell gelesen (Einstellungen &gt; „Meine Dokumente sind in mehreren Sprachen“), ihr Index aber wurde vom englischen erstellt und muss daher neu aufgebaut werden. Bis dahin wird nur nach ihren Wörtern gesucht.</translation>
    </message>
    <message>
        <source>Your library is read by the English embedder again, and its index was made by the multilingual one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Ihre Bibliothek wird wieder vom englischen Einbettungsmodell gelesen, ihr Index aber wurde vom mehrsprachigen erstellt und muss daher neu aufgebaut werden. Bis dahin wird nur nach ihren Wörtern gesucht.</translation>
    </message>
    <message>
        <source>A rebuild should take about 1 minute; the current index keeps answering meanwhile.</source>
        <translation>Der Neuaufbau sollte etwa 1 Minute dauern; der aktuelle Index antwortet währenddessen weiter.</translation>
    </message>
    <message>
        <source>A rebuild should take about {minutes} minutes; the current index keeps answering meanwhile.</source>
        <translation>Der Neuaufbau sollte etwa {minutes} Minuten dauern; der aktuelle Index antwortet währenddessen weiter.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Desktop RAG is already running</source>
        <translation>Desktop RAG läuft bereits</translation>
    </message>
</context>
</TS>
