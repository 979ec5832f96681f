<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr">
<context>
    <name>ChatPane</name>
    <message>
        <source>Show the documents&apos; own sentences</source>
        <translation>Afficher les phrases mêmes des documents</translation>
    </message>
    <message>
        <source>Finding the documents&apos; own sentences…</source>
        <translation>Recherche des phrases mêmes des documents…</translation>
    </message>
    <message>
        <source>None of the sources&apos; sentences answers it closely enough.</source>
        <translation>Aucune phrase des sources n’y répond d’assez près.</translation>
    </message>
    <message>
        <source>{n}th</source>
        <translation>n° {n}</translation>
    </message>
    <message>
        <source>{nth} best match for your words</source>
        <translation>{nth} pour vos mots</translation>
    </message>
    <message>
        <source>none of your words</source>
        <translation>aucun de vos mots</translation>
    </message>
    <message>
        <source>{nth} closest in meaning</source>
        <translation>{nth} par le sens</translation>
    </message>
    <message>
        <source>not among the closest in meaning</source>
        <translation>pas parmi les plus proches par le sens</translation>
    </message>
    <message>
        <source>moved up for its best sentence</source>
        <translation>remonté grâce à sa meilleure phrase</translation>
    </message>
    <message>
        <source>moved down: {why}</source>
        <translation>descendu : {why}</translation>
    </message>
    <message>
        <source>Show the model&apos;s answer</source>
        <translation>Afficher la réponse du modèle</translation>
    </message>
    <message>
        <source>Show {model}&apos;s answer</source>
        <translation>Afficher la réponse de {model}</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>Conversation</translation>
    </message>
    <message>
        <source>Answer status</source>
        <translation>État de la réponse</translation>
    </message>
    <message>
        <source>Ask a question about your documents…</source>
        <translation>Posez une question sur vos documents…</translation>
    </message>
    <message>
        <source>Enter sends the question; Shift+Enter starts a new line</source>
        <translation>Entrée envoie la question ; Maj+Entrée commence une nouvelle ligne</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>Question</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>Demander</translation>
    </message>
    <message>
        <source>Send the question (Enter)</source>
        <translation>Envoyer la question (Entrée)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>Arrêter</translation>
    </message>
    <message>
        <source>Stop answering</source>
        <translation>Arrêter la réponse</translation>
    </message>
    <message>
        <source>Stop the answer (Esc)</source>
        <translation>Arrêter la réponse (Échap)</translation>
    </message>
    <message>
        <source>Scope</source>
        <translation>Portée</translation>
    </message>
    <message>
        <source>Clear the scope</source>
        <translation>Effacer la portée</translation>
    </message>
    <message>
        <source>Ask the whole library again</source>
        <translation>Interroger à nouveau toute la bibliothèque</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>Modifier</translation>
    </message>
    <message>
        <source>Change the scope</source>
        <translation>Modifier la portée</translation>
    </message>
    <message>
        <source>Answer from a saved collection, or from all documents</source>
        <translation>Répondre à partir d’une collection enregistrée, ou de tous les documents</translation>
    </message>
    <message>
        <source>All documents</source>
        <translation>Tous les documents</translation>
    </message>
    <message>
        <source>Answering from: {scope}</source>
        <translation>Réponses à partir de : {scope}</translation>
    </message>
    <message>
        <source>Ask a question about {scope}…</source>
        <translation>Posez une question sur {scope}…</translation>
    </message>
    <message>
        <source>You</source>
        <translation>Vous</translation>
    </message>
    <message>
        <source>Thinking…</source>
        <translation>Réflexion…</translation>
    </message>
    <message>
        <source>Stopped.</source>
        <translation>Arrêtée.</translation>
    </message>
    <message>
        <source>Copy answer</source>
        <translation>Copier la réponse</translation>
    </message>
    <message>
        <source>Hide ranking</source>
        <translation>Masquer le classement</translation>
    </message>
    <message>
        <source>Why these?</source>
        <translation>Pourquoi celles-ci ?</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>non enregistré</translation>
    </message>
    <message>
        <source>Hide the figures</source>
        <translation>Masquer les chiffres</translation>
    </message>
    <message>
        <source>Show the search&apos;s figures</source>
        <translation>Afficher les chiffres de la recherche</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Sources</translation>
    </message>
    <message>
        <source>In the sources&apos; own words</source>
        <translation>Dans les termes mêmes des sources</translation>
    </message>
    <message>
        <source>Your library starts with the Desktop RAG user guide. Ask it something:</source>
        <translation>Votre bibliothèque commence avec le guide de l’utilisateur de Desktop RAG. Posez-lui une question :</translation>
    </message>
    <message>
        <source>Ask anything about the {n} documents in your library. For example:</source>
        <translation>Posez n’importe quelle question sur les {n} documents de votre bibliothèque. Par exemple :</translation>
    </message>
    <message>
        <source>Ask anything about the documents in your library. For example:</source>
        <translation>Posez n’importe quelle question sur les documents de votre bibliothèque. Par exemple :</translation>
    </message>
    <message>
        <source>Ask your documents</source>
        <translation>Interrogez vos documents</translation>
    </message>
    <message>
        <source>Add documents by dropping files or folders on this window, or with &lt;i&gt;Add folder&lt;/i&gt; (Ctrl+O). Answers cite their sources as [1], [2]…: click one to see the page. Everything stays on this computer.</source>
        <translation>Ajoutez des documents en déposant des fichiers ou des dossiers sur cette fenêtre, ou avec &lt;i&gt;Ajouter un dossier&lt;/i&gt; (Ctrl+O). Les réponses citent leurs sources sous la forme [1], [2]… : cliquez sur l’une d’elles pour voir la page. Tout reste sur cet ordinateur.</translation>
    </message>
</context>
<context>
    <name>ConversationsModel</name>
    <message>
        <source>New conversation</source>
        <translation>Nouvelle conversation</translation>
    </message>
    <message>
        <source>1 question</source>
        <translation>1 question</translation>
    </message>
    <message>
        <source>{n} questions</source>
        <translation>{n} questions</translation>
    </message>
</context>
<context>
    <name>ConversationsPane</name>
    <message>
        <source>New</source>
        <translation>Nouvelle</translation>
    </message>
    <message>
        <source>Start a new conversation (Ctrl+N)</source>
        <translation>Commencer une nouvelle conversation (Ctrl+N)</translation>
    </message>
    <message>
        <source>New conversation</source>
        <translation>Nouvelle conversation</translation>
    </message>
    <message>
        <source>Your conversations will be listed here.</source>
        <translation>Vos conversations apparaîtront ici.</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversations</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Supprimer la conversation</translation>
    </message>
</context>
<context>
    <name>DocumentListModel</name>
    <message>
        <source>Document</source>
        <translation>Document</translation>
    </message>
    <message>
        <source>Matching passages</source>
        <translation>Passages correspondants</translation>
    </message>
    <message>
        <source>Best page</source>
        <translation>Meilleure page</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>Dossier</translation>
    </message>
</context>
<context>
    <name>DocumentListPanel</name>
    <message>
        <source>Documents found</source>
        <translation>Documents trouvés</translation>
    </message>
    <message>
        <source>Documents that answer the question</source>
        <translation>Documents qui répondent à la question</translation>
    </message>
    <message>
        <source>Click a document to open it at its best passage</source>
        <translation>Cliquez sur un document pour l’ouvrir à son meilleur passage</translation>
    </message>
</context>
<context>
    <name>DocumentsModel</name>
    <message>
        <source>Queued</source>
        <translation>En attente</translation>
    </message>
    <message>
        <source>Indexing…</source>
        <translation>Indexation…</translation>
    </message>
    <message>
        <source>Indexed</source>
        <translation>Indexé</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>Échec</translation>
    </message>
    <message>
        <source>Removed from the index</source>
        <translation>Retiré de l’index</translation>
    </message>
    <message>
        <source>Indexing</source>
        <translation>Indexation</translation>
    </message>
    <message>
        <source>Removed</source>
        <translation>Retiré</translation>
    </message>
    <message>
        <source>{pages} pages, read with OCR</source>
        <translation>{pages} pages, lues avec l’OCR</translation>
    </message>
    <message>
        <source>{pages} pages, some read with OCR</source>
        <translation>{pages} pages, dont certaines lues avec l’OCR</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Nom</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>État</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>Pages</translation>
    </message>
    <message>
        <source>Passages</source>
        <translation>Passages</translation>
    </message>
    <message>
        <source>1 section</source>
        <translation>1 section</translation>
    </message>
    <message>
        <source>{n} sections</source>
        <translation>{n} sections</translation>
    </message>
    <message>
        <source>1 passage indexed</source>
        <translation>1 passage indexé</translation>
    </message>
    <message>
        <source>{n} passages indexed</source>
        <translation>{n} passages indexés</translation>
    </message>
</context>
<context>
    <name>DocumentsPane</name>
    <message>
        <source>Add folder…</source>
        <translation>Ajouter un dossier…</translation>
    </message>
    <message>
        <source>Watch a folder of documents (Ctrl+O)</source>
        <translation>Surveiller un dossier de documents (Ctrl+O)</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Retirer</translation>
    </message>
    <message>
        <source>Stop watching the selected folder</source>
        <translation>Ne plus surveiller le dossier sélectionné</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Dossiers surveillés</translation>
    </message>
    <message>
        <source>Filter files</source>
        <translation>Filtrer les fichiers</translation>
    </message>
    <message>
        <source>Documents</source>
        <translation>Documents</translation>
    </message>
    <message>
        <source>Selected file</source>
        <translation>Fichier sélectionné</translation>
    </message>
    <message>
        <source>Indexing progress</source>
        <translation>Progression de l’indexation</translation>
    </message>
    <message>
        <source>Library summary</source>
        <translation>Résumé de la bibliothèque</translation>
    </message>
    <message>
        <source>Indexing status</source>
        <translation>État de l’indexation</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Pause indexing</source>
        <translation>Mettre l’indexation en pause</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <source>Stop indexing; what is done is kept</source>
        <translation>Arrêter l’indexation ; ce qui est fait est conservé</translation>
    </message>
    <message>
        <source>Rescan</source>
        <translation>Réanalyser</translation>
    </message>
    <message>
        <source>Check the watched folders for changes</source>
        <translation>Rechercher des modifications dans les dossiers surveillés</translation>
    </message>
    <message>
        <source>(not watched: checked {every})</source>
        <translation>(non surveillé : vérifié {every})</translation>
    </message>
    <message>
        <source>Folder {path}</source>
        <translation>Dossier {path}</translation>
    </message>
    <message>
        <source>Ask about these</source>
        <translation>Poser une question sur ceux-ci</translation>
    </message>
    <message>
        <source>Ask about this document</source>
        <translation>Poser une question sur ce document</translation>
    </message>
    <message>
        <source>A new conversation that answers from these documents only</source>
        <translation>Une nouvelle conversation qui répond uniquement à partir de ces documents</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Ouvrir</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>Afficher dans le dossier</translation>
    </message>
    <message>
        <source>Outline</source>
        <translation>Structure</translation>
    </message>
    <message>
        <source>Its headings, each with its most central sentences and their pages, in the chat</source>
        <translation>Ses titres, chacun avec ses phrases les plus centrales et leurs pages, dans la discussion</translation>
    </message>
    <message>
        <source>Enter password…</source>
        <translation>Saisir le mot de passe…</translation>
    </message>
    <message>
        <source>Include again</source>
        <translation>Inclure à nouveau</translation>
    </message>
    <message>
        <source>Index again</source>
        <translation>Indexer à nouveau</translation>
    </message>
    <message>
        <source>Read with OCR</source>
        <translation>Lire avec l’OCR</translation>
    </message>
    <message>
        <source>For a PDF whose text comes out as garbage: read every page from its image instead. Remembered for this file.</source>
        <translation>Pour un PDF dont le texte sort illisible : lire plutôt chaque page à partir de son image. Mémorisé pour ce fichier.</translation>
    </message>
    <message>
        <source>Remove from the index</source>
        <translation>Retirer de l’index</translation>
    </message>
    <message>
        <source>The reader said: {words}</source>
        <translation>Le lecteur a indiqué : {words}</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>Masquer</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Détails</translation>
    </message>
    <message>
        <source>Looking for changes…</source>
        <translation>Recherche de modifications…</translation>
    </message>
    <message>
        <source>{done} of {total} files · {pages} pages</source>
        <translation>{done} fichiers sur {total} · {pages} pages</translation>
    </message>
    <message>
        <source>about {eta} left</source>
        <translation>environ {eta} restant</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Reprendre</translation>
    </message>
    <message>
        <source>Carry on indexing</source>
        <translation>Reprendre l’indexation</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>En pause</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Ouverture de la bibliothèque…</translation>
    </message>
    <message>
        <source>No documents yet. Drop files or a folder on this window, or add a folder.</source>
        <translation>Aucun document pour l’instant. Déposez des fichiers ou un dossier sur cette fenêtre, ou ajoutez un dossier.</translation>
    </message>
    <message>
        <source>1 document · {pages} pages indexed</source>
        <translation>1 document · {pages} pages indexées</translation>
    </message>
    <message>
        <source>{n} documents · {pages} pages indexed</source>
        <translation>{n} documents · {pages} pages indexées</translation>
    </message>
    <message>
        <source>{n} could not be read</source>
        <translation>{n} illisibles</translation>
    </message>
    <message>
        <source>{n} waiting</source>
        <translation>{n} en attente</translation>
    </message>
    <message>
        <source>Indexing cancelled; what was done is kept.</source>
        <translation>Indexation annulée ; ce qui a été fait est conservé.</translation>
    </message>
</context>
<context>
    <name>KindBar</name>
    <message>
        <source>Answer from &amp;passages</source>
        <translation>Répondre à partir des &amp;passages</translation>
    </message>
    <message>
        <source>Answer with the &amp;document&apos;s outline</source>
        <translation>Répondre avec la &amp;structure du document</translation>
    </message>
    <message>
        <source>Answer with a &amp;list of documents</source>
        <translation>Répondre avec une &amp;liste de documents</translation>
    </message>
    <message>
        <source>Kind of question</source>
        <translation>Type de question</translation>
    </message>
    <message>
        <source>How the question was taken, by plain rules; Answer as asks it again as another kind</source>
        <translation>Comment la question a été comprise, selon des règles simples ; « Répondre comme » la repose sous un autre type</translation>
    </message>
    <message>
        <source>Answer as</source>
        <translation>Répondre comme</translation>
    </message>
    <message>
        <source>Answer as another kind of question</source>
        <translation>Répondre comme à un autre type de question</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Sho&amp;w the model&apos;s answer</source>
        <translation>A&amp;fficher la réponse du modèle</translation>
    </message>
    <message>
        <source>Sho&amp;w {model}&apos;s answer</source>
        <translation>A&amp;fficher la réponse de {model}</translation>
    </message>
    <message>
        <source>Sho&amp;w the documents&apos; own sentences</source>
        <translation>A&amp;fficher les phrases mêmes des documents</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nouvelle conversation</translation>
    </message>
    <message>
        <source>Add &amp;folder…</source>
        <translation>Ajouter un &amp;dossier…</translation>
    </message>
    <message>
        <source>Add &amp;documents…</source>
        <translation>Ajouter des d&amp;ocuments…</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>&amp;Paramètres…</translation>
    </message>
    <message>
        <source>&amp;Rebuild index…</source>
        <translation>&amp;Reconstruire l’index…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quitter</translation>
    </message>
    <message>
        <source>&amp;Stop answering</source>
        <translation>&amp;Arrêter la réponse</translation>
    </message>
    <message>
        <source>&amp;Copy last answer</source>
        <translation>&amp;Copier la dernière réponse</translation>
    </message>
    <message>
        <source>User &amp;guide</source>
        <translation>&amp;Guide de l’utilisateur</translation>
    </message>
    <message>
        <source>&amp;About Desktop RAG</source>
        <translation>À &amp;propos de Desktop RAG</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Bibliothèque</translation>
    </message>
    <message>
        <source>Show your documents and conversations (Ctrl+L)</source>
        <translation>Afficher vos documents et conversations (Ctrl+L)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Fichier</translation>
    </message>
    <message>
        <source>&amp;Chat</source>
        <translation>&amp;Discussion</translation>
    </message>
    <message>
        <source>&amp;Answer as</source>
        <translation>&amp;Répondre comme</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Aide</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Principale</translation>
    </message>
    <message>
        <source>Opening the library…</source>
        <translation>Ouverture de la bibliothèque…</translation>
    </message>
    <message>
        <source>Library state</source>
        <translation>État de la bibliothèque</translation>
    </message>
    <message>
        <source>Search model state</source>
        <translation>État du modèle de recherche</translation>
    </message>
    <message>
        <source>Answer model state</source>
        <translation>État du modèle de réponse</translation>
    </message>
    <message>
        <source>Library: cannot be opened</source>
        <translation>Bibliothèque : impossible de l’ouvrir</translation>
    </message>
    <message>
        <source>The library cannot be opened</source>
        <translation>Impossible d’ouvrir la bibliothèque</translation>
    </message>
    <message>
        <source>Library: needs rebuilding</source>
        <translation>Bibliothèque : à reconstruire</translation>
    </message>
    <message>
        <source>Most of this library is in {language}: Settings &gt; “My documents are in several languages” finds its passages better.</source>
        <translation>La majeure partie de cette bibliothèque est en {language} : Paramètres &gt; « Mes documents sont en plusieurs langues » en trouve mieux les passages.</translation>
    </message>
    <message>
        <source>German</source>
        <translation>allemand</translation>
    </message>
    <message>
        <source>French</source>
        <translation>français</translation>
    </message>
    <message>
        <source>Spanish</source>
        <translation>espagnol</translation>
    </message>
    <message>
        <source>Italian</source>
        <translation>italien</translation>
    </message>
    <message>
        <source>Portuguese</source>
        <translation>portugais</translation>
    </message>
    <message>
        <source>Dutch</source>
        <translation>néerlandais</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>chinois</translation>
    </message>
    <message>
        <source>Japanese</source>
        <translation>japonais</translation>
    </message>
    <message>
        <source>Korean</source>
        <translation>coréen</translation>
    </message>
    <message>
        <source>The index is built again from every watched folder, beside the current one, which keeps answering until the new one is complete.</source>
        <translation>L’index est reconstruit à partir de chaque dossier surveillé, à côté de l’index actuel, qui continue de répondre jusqu’à ce que le nouveau soit complet.</translation>
    </message>
    <message>
        <source>Rebuild the index?</source>
        <translation>Reconstruire l’index ?</translation>
    </message>
    <message>
        <source>Rebuild now? Your files are not touched.</source>
        <translation>Reconstruire maintenant ? Vos fichiers ne sont pas modifiés.</translation>
    </message>
    <message>
        <source>The index was not rebuilt: it answers as it was built, and changes to your documents wait for a rebuild (File &gt; Rebuild index).</source>
        <translation>L’index n’a pas été reconstruit : il répond tel qu’il a été construit, et les modifications de vos documents attendent une reconstruction (Fichier &gt; Reconstruire l’index).</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is being indexed.</source>
        <translation>Bienvenue ! Le dossier de votre bibliothèque est {folder} ; le guide de l’utilisateur qu’il contient est en cours d’indexation.</translation>
    </message>
    <message>
        <source>Found by words; computing vectors</source>
        <translation>Trouvé par les mots ; calcul des vecteurs</translation>
    </message>
    <message>
        <source>Indexing {done} of {total} files</source>
        <translation>Indexation de {done} fichiers sur {total}</translation>
    </message>
    <message>
        <source>Welcome! Your library folder is {folder}; the user guide in it is indexed: ask it a question below.</source>
        <translation>Bienvenue ! Le dossier de votre bibliothèque est {folder} ; le guide de l’utilisateur qu’il contient est indexé : posez-lui une question ci-dessous.</translation>
    </message>
    <message>
        <source>1 file could not be read; see Documents.</source>
        <translation>1 fichier n’a pas pu être lu ; voir Documents.</translation>
    </message>
    <message>
        <source>{n} files could not be read; see Documents.</source>
        <translation>{n} fichiers n’ont pas pu être lus ; voir Documents.</translation>
    </message>
    <message>
        <source>Indexing stopped: {why}</source>
        <translation>Indexation interrompue : {why}</translation>
    </message>
    <message>
        <source>1 document</source>
        <translation>1 document</translation>
    </message>
    <message>
        <source>{n} documents</source>
        <translation>{n} documents</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (indexing)</source>
        <translation>Bibliothèque : {documents}, {pages} pages (indexation)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages (needs rebuilding)</source>
        <translation>Bibliothèque : {documents}, {pages} pages (à reconstruire)</translation>
    </message>
    <message>
        <source>Library: {documents}, {pages} pages</source>
        <translation>Bibliothèque : {documents}, {pages} pages</translation>
    </message>
    <message>
        <source>Add a folder of documents to watch</source>
        <translation>Ajouter un dossier de documents à surveiller</translation>
    </message>
    <message>
        <source>Add documents (they are copied into your library)</source>
        <translation>Ajouter des documents (ils sont copiés dans votre bibliothèque)</translation>
    </message>
    <message>
        <source>Documents ({patterns});;PDF files (*.pdf);;All files (*)</source>
        <translation>Documents ({patterns});;Fichiers PDF (*.pdf);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>Stop watching this folder?</source>
        <translation>Ne plus surveiller ce dossier ?</translation>
    </message>
    <message>
        <source>Its documents will be removed from the index. The files on your disk are not touched.</source>
        <translation>Ses documents seront retirés de l’index. Les fichiers sur votre disque ne sont pas modifiés.</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Mot de passe</translation>
    </message>
    <message>
        <source>Password for {name}
(used to read it now; not saved):</source>
        <translation>Mot de passe de {name}
(utilisé pour le lire maintenant ; non enregistré) :</translation>
    </message>
    <message>
        <source>The library is still opening; ask again for {name} in a moment.</source>
        <translation>La bibliothèque est encore en cours d’ouverture ; redemandez {name} dans un instant.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again after the indexing in progress.</source>
        <translation>{name} sera indexé à nouveau après l’indexation en cours.</translation>
    </message>
    <message>
        <source>{name} is queued to be indexed again.</source>
        <translation>{name} est en attente d’une nouvelle indexation.</translation>
    </message>
    <message>
        <source>Search: waiting</source>
        <translation>Recherche : en attente</translation>
    </message>
    <message>
        <source>Search: loading…</source>
        <translation>Recherche : chargement…</translation>
    </message>
    <message>
        <source>Search: ready</source>
        <translation>Recherche : prête</translation>
    </message>
    <message>
        <source>Search: failed</source>
        <translation>Recherche : échec</translation>
    </message>
    <message>
        <source>Search: missing</source>
        <translation>Recherche : introuvable</translation>
    </message>
    <message>
        <source>The model that finds passages (MiniLM)</source>
        <translation>Le modèle qui trouve les passages (MiniLM)</translation>
    </message>
    <message>
        <source>Answers: waiting</source>
        <translation>Réponses : en attente</translation>
    </message>
    <message>
        <source>Answers: loading…</source>
        <translation>Réponses : chargement…</translation>
    </message>
    <message>
        <source>Answers: ready</source>
        <translation>Réponses : prêtes</translation>
    </message>
    <message>
        <source>Answers: failed</source>
        <translation>Réponses : échec</translation>
    </message>
    <message>
        <source>Answers: unavailable</source>
        <translation>Réponses : indisponibles</translation>
    </message>
    <message>
        <source>The answer model could not be loaded: {why}</source>
        <translation>Impossible de charger le modèle de réponse : {why}</translation>
    </message>
    <message>
        <source>Searching your documents…</source>
        <translation>Recherche dans vos documents…</translation>
    </message>
    <message>
        <source>Building the outline…</source>
        <translation>Création de la structure…</translation>
    </message>
    <message>
        <source>Building the outline: {done} of {total} sections (ETA {eta})…</source>
        <translation>Création de la structure : {done} sections sur {total} (reste {eta})…</translation>
    </message>
    <message>
        <source>[{n}] is not one of this answer&apos;s sources.</source>
        <translation>[{n}] n’est pas l’une des sources de cette réponse.</translation>
    </message>
    <message>
        <source>The documents&apos; own sentences were not found: {why}</source>
        <translation>Les phrases mêmes des documents n’ont pas été trouvées : {why}</translation>
    </message>
    <message>
        <source>The guide is not in {folder}.</source>
        <translation>Le guide n’est pas dans {folder}.</translation>
    </message>
    <message>
        <source>{path} cannot be opened ({why}).</source>
        <translation>Impossible d’ouvrir {path} ({why}).</translation>
    </message>
    <message>
        <source>Answer copied.</source>
        <translation>Réponse copiée.</translation>
    </message>
    <message>
        <source>About Desktop RAG</source>
        <translation>À propos de Desktop RAG</translation>
    </message>
    <message>
        <source>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Private answers from your own documents. Everything runs on this computer; nothing is sent anywhere.&lt;/p&gt;&lt;p&gt;Answer model: {model}&lt;br&gt;Data: {data}&lt;/p&gt;</source>
        <translation>&lt;b&gt;Desktop RAG {version}&lt;/b&gt;&lt;p&gt;Des réponses privées tirées de vos propres documents. Tout s’exécute sur cet ordinateur ; rien n’est envoyé nulle part.&lt;/p&gt;&lt;p&gt;Modèle de réponse : {model}&lt;br&gt;Données : {data}&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Using the model {name}.</source>
        <translation>Utilisation du modèle {name}.</translation>
    </message>
    <message>
        <source>{name} {why}; nothing added.</source>
        <translation>{name} {why} ; rien n’a été ajouté.</translation>
    </message>
</context>
<context>
    <name>Session</name>
    <message>
        <source>Wait for the current indexing to finish, then rebuild.</source>
        <translation>Attendez la fin de l’indexation en cours, puis reconstruisez.</translation>
    </message>
    <message>
        <source>Rebuilding the index from your documents…</source>
        <translation>Reconstruction de l’index à partir de vos documents…</translation>
    </message>
    <message>
        <source>The index must be rebuilt before changes can be indexed; they are indexed once it is.</source>
        <translation>L’index doit être reconstruit avant que les modifications puissent être indexées ; elles le seront ensuite.</translation>
    </message>
    <message>
        <source>The library is still opening; drop the files again in a moment.</source>
        <translation>La bibliothèque est encore en cours d’ouverture ; déposez à nouveau les fichiers dans un instant.</translation>
    </message>
    <message>
        <source>The library is still opening.</source>
        <translation>La bibliothèque est encore en cours d’ouverture.</translation>
    </message>
    <message>
        <source>Answers cannot be composed from the sources here.</source>
        <translation>Les réponses ne peuvent pas être composées à partir des sources ici.</translation>
    </message>
    <message>
        <source>The conversation could not be saved: {why}</source>
        <translation>Impossible d’enregistrer la conversation : {why}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Pages that are only pictures (scans, photos of pages) are read on this computer, up to half a minute a page. Print reads well in English, Chinese, Japanese and the languages written with accents (é, ü, ñ), which are kept. Handwriting is not read.</source>
        <translation>Les pages qui ne sont que des images (numérisations, photos de pages) sont lues sur cet ordinateur, jusqu’à une demi-minute par page. L’imprimé se lit bien en anglais, en chinois, en japonais et dans les langues à accents (é, ü, ñ), qui sont conservés. L’écriture manuscrite n’est pas lue.</translation>
    </message>
    <message>
        <source>Finds passages in German, French, Spanish, Italian, Japanese, Chinese… by what they mean, not only by their words. Switching rebuilds the index in the background while the current one goes on answering by its words; indexing takes about half as long again from then on.</source>
        <translation>Trouve les passages en allemand, français, espagnol, italien, japonais, chinois… par leur sens, pas seulement par leurs mots. Changer ce réglage reconstruit l’index en arrière-plan pendant que l’index actuel continue de répondre par ses mots ; l’indexation prend ensuite environ une fois et demie plus de temps.</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Paramètres</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>Dossiers surveillés</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>Ajouter…</translation>
    </message>
    <message>
        <source>Add folder</source>
        <translation>Ajouter un dossier</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Retirer</translation>
    </message>
    <message>
        <source>Remove folder</source>
        <translation>Retirer le dossier</translation>
    </message>
    <message>
        <source>Built in: Gemma 3 270M</source>
        <translation>Intégré : Gemma 3 270M</translation>
    </message>
    <message>
        <source>Model file</source>
        <translation>Fichier de modèle</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>Choisir…</translation>
    </message>
    <message>
        <source>Choose a model file</source>
        <translation>Choisir un fichier de modèle</translation>
    </message>
    <message>
        <source>Use built-in</source>
        <translation>Utiliser l’intégré</translation>
    </message>
    <message>
        <source>Use the built-in model</source>
        <translation>Utiliser le modèle intégré</translation>
    </message>
    <message>
        <source>Models found on this computer</source>
        <translation>Modèles trouvés sur cet ordinateur</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Provenance</translation>
    </message>
    <message>
        <source>Quantisation</source>
        <translation>Quantification</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Taille</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Mémoire</translation>
    </message>
    <message>
        <source>Looking for models of LM Studio, Ollama, GPT4All, Jan…</source>
        <translation>Recherche des modèles de LM Studio, Ollama, GPT4All, Jan…</translation>
    </message>
    <message>
        <source>Automatic ({n})</source>
        <translation>Automatique ({n})</translation>
    </message>
    <message>
        <source>Processor threads</source>
        <translation>Threads du processeur</translation>
    </message>
    <message>
        <source>Text the model reads at once</source>
        <translation>Texte que le modèle lit en une fois</translation>
    </message>
    <message>
        <source>Sources per answer</source>
        <translation>Sources par réponse</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR (on this computer, offline)</source>
        <translation>Lire les pages numérisées avec l’OCR (sur cet ordinateur, hors ligne)</translation>
    </message>
    <message>
        <source>Read scanned pages with OCR</source>
        <translation>Lire les pages numérisées avec l’OCR</translation>
    </message>
    <message>
        <source>My documents are in several languages</source>
        <translation>Mes documents sont en plusieurs langues</translation>
    </message>
    <message>
        <source>Watched folders:</source>
        <translation>Dossiers surveillés :</translation>
    </message>
    <message>
        <source>Answer model:</source>
        <translation>Modèle de réponse :</translation>
    </message>
    <message>
        <source>Models on this computer:</source>
        <translation>Modèles sur cet ordinateur :</translation>
    </message>
    <message>
        <source>Processor threads:</source>
        <translation>Threads du processeur :</translation>
    </message>
    <message>
        <source>Text read at once:</source>
        <translation>Texte lu en une fois :</translation>
    </message>
    <message>
        <source>Sources per answer:</source>
        <translation>Sources par réponse :</translation>
    </message>
    <message>
        <source>Scanned PDFs:</source>
        <translation>PDF numérisés :</translation>
    </message>
    <message>
        <source>Languages:</source>
        <translation>Langues :</translation>
    </message>
    <message>
        <source>The more text the model reads at once, the more sources it can read, and the more memory it needs. Removing a folder removes its documents from the index, never from your disk.</source>
        <translation>Plus le modèle lit de texte en une fois, plus il peut lire de sources, et plus il lui faut de mémoire. Retirer un dossier retire ses documents de l’index, jamais de votre disque.</translation>
    </message>
    <message>
        <source>&amp;General</source>
        <translation>&amp;Général</translation>
    </message>
    <message>
        <source>&amp;Team library</source>
        <translation>Bibliothèque d’&amp;équipe</translation>
    </message>
    <message>
        <source>Add a folder of documents</source>
        <translation>Ajouter un dossier de documents</translation>
    </message>
    <message>
        <source>Choose a GGUF model</source>
        <translation>Choisir un modèle GGUF</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>Modèles GGUF (*.gguf);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>,</source>
        <comment>thousands separator</comment>
        <translation>&#x202f;</translation>
    </message>
    <message>
        <source>word pieces, about {words} words</source>
        <translation>fragments de mots, environ {words} mots</translation>
    </message>
    <message>
        <source>Could not look for other apps&apos; models: {why}</source>
        <translation>Impossible de rechercher les modèles d’autres applications : {why}</translation>
    </message>
    <message>
        <source>No models found in the folders of LM Studio, Ollama, GPT4All, Jan or llama.cpp. Choose a .gguf file instead.</source>
        <translation>Aucun modèle trouvé dans les dossiers de LM Studio, Ollama, GPT4All, Jan ou llama.cpp. Choisissez plutôt un fichier .gguf.</translation>
    </message>
    <message>
        <source>Downloaded by other apps; choose one to use it.</source>
        <translation>Téléchargés par d’autres applications ; choisissez-en un pour l’utiliser.</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>tient</translation>
    </message>
    <message>
        <source>too large</source>
        <translation>trop grand</translation>
    </message>
    <message>
        <source>Needs about {needed} of memory; {free} is free now.</source>
        <translation>Nécessite environ {needed} de mémoire ; {free} sont libres actuellement.</translation>
    </message>
    <message>
        <source>The model file {path} does not exist.</source>
        <translation>Le fichier de modèle {path} n’existe pas.</translation>
    </message>
    <message>
        <source>{path} is not a GGUF model file.</source>
        <translation>{path} n’est pas un fichier de modèle GGUF.</translation>
    </message>
    <message>
        <source>Remove folders from the library?</source>
        <translation>Retirer des dossiers de la bibliothèque ?</translation>
    </message>
    <message>
        <source>These folders will no longer be watched, and their documents will be removed from the index (the files on your disk are not touched):</source>
        <translation>Ces dossiers ne seront plus surveillés, et leurs documents seront retirés de l’index (les fichiers sur votre disque ne sont pas modifiés) :</translation>
    </message>
</context>
<context>
    <name>SourcePane</name>
    <message>
        <source>Sources</source>
        <translation>Sources</translation>
    </message>
    <message>
        <source>Sources of the answer</source>
        <translation>Sources de la réponse</translation>
    </message>
    <message>
        <source>Page shown</source>
        <translation>Page affichée</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>Page précédente</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>Page suivante</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>Zoom arrière</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>Zoom avant</translation>
    </message>
    <message>
        <source>Open in system viewer</source>
        <translation>Ouvrir dans la visionneuse du système</translation>
    </message>
    <message>
        <source>Open this PDF in your usual PDF viewer</source>
        <translation>Ouvrir ce PDF dans votre visionneuse PDF habituelle</translation>
    </message>
    <message>
        <source>Close page</source>
        <translation>Fermer la page</translation>
    </message>
    <message>
        <source>Close this page</source>
        <translation>Fermer cette page</translation>
    </message>
    <message>
        <source>PDF page</source>
        <translation>Page PDF</translation>
    </message>
    <message>
        <source>Cited passage</source>
        <translation>Passage cité</translation>
    </message>
    <message>
        <source>No page shown</source>
        <translation>Aucune page affichée</translation>
    </message>
    <message>
        <source>Click a source, or a number like [1] in an answer, to see the page it came from.</source>
        <translation>Cliquez sur une source, ou sur un numéro comme [1] dans une réponse, pour voir la page d’où elle vient.</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>Ouverture de {name}…</translation>
    </message>
    <message>
        <source>This PDF cannot be opened ({why}): {path}</source>
        <translation>Impossible d’ouvrir ce PDF ({why}) : {path}</translation>
    </message>
    <message>
        <source>Open this document in the program your system opens it with</source>
        <translation>Ouvrir ce document avec le programme que votre système utilise pour l’ouvrir</translation>
    </message>
    <message>
        <source>{name} — page {page} of {total}</source>
        <translation>{name} — page {page} sur {total}</translation>
    </message>
    <message>
        <source>(printed {label})</source>
        <translation>(imprimée {label})</translation>
    </message>
    <message>
        <source>No program on this computer is set up to open {name}; the file is {path}.</source>
        <translation>Aucun programme de cet ordinateur n’est configuré pour ouvrir {name} ; le fichier est {path}.</translation>
    </message>
</context>
<context>
    <name>TeamLibraryBox</name>
    <message>
        <source>A library your team keeps on object storage (S3, MinIO, Ceph), searched beside yours and never written from here; its sources say “Team:”. Keys come from the AWS variables, the profile named here or the system keyring, and are never saved in these settings.</source>
        <translation>Une bibliothèque que votre équipe conserve sur un stockage objet (S3, MinIO, Ceph), consultée en plus de la vôtre et jamais modifiée d’ici ; ses sources portent la mention « Team: ». Les clés proviennent des variables AWS, du profil indiqué ici ou du trousseau du système, et ne sont jamais enregistrées dans ces paramètres.</translation>
    </message>
    <message>
        <source>s3://bucket/path (empty: none)</source>
        <translation>s3://bucket/chemin (vide : aucune)</translation>
    </message>
    <message>
        <source>Team library URI</source>
        <translation>URI de la bibliothèque d’équipe</translation>
    </message>
    <message>
        <source>default profile</source>
        <translation>profil par défaut</translation>
    </message>
    <message>
        <source>Team library AWS profile</source>
        <translation>Profil AWS de la bibliothèque d’équipe</translation>
    </message>
    <message>
        <source>AWS, or http://nas.office:9000 for MinIO</source>
        <translation>AWS, ou http://nas.office:9000 pour MinIO</translation>
    </message>
    <message>
        <source>Team library Endpoint</source>
        <translation>Point de terminaison de la bibliothèque d’équipe</translation>
    </message>
    <message>
        <source>from the profile, or us-east-1</source>
        <translation>d’après le profil, ou us-east-1</translation>
    </message>
    <message>
        <source>Team library Region</source>
        <translation>Région de la bibliothèque d’équipe</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>Adresse :</translation>
    </message>
    <message>
        <source>Profile:</source>
        <translation>Profil :</translation>
    </message>
    <message>
        <source>Endpoint:</source>
        <translation>Point de terminaison :</translation>
    </message>
    <message>
        <source>Region:</source>
        <translation>Région :</translation>
    </message>
    <message>
        <source>The team library&apos;s address must start with s3:// (not {uri}).</source>
        <translation>L’adresse de la bibliothèque d’équipe doit commencer par s3:// (et non {uri}).</translation>
    </message>
    <message>
        <source>The team library&apos;s endpoint must start with http:// or https:// ({endpoint}).</source>
        <translation>Le point de terminaison de la bibliothèque d’équipe doit commencer par http:// ou https:// ({endpoint}).</translation>
    </message>
</context>
<context>
    <name>TextView</name>
    <message>
        <source>Document text</source>
        <translation>Texte du document</translation>
    </message>
    <message>
        <source>This document cannot be opened ({why}): {path}</source>
        <translation>Impossible d’ouvrir ce document ({why}) : {path}</translation>
    </message>
</context>
<context>
    <name>Words</name>
    <message>
        <source>Written by the model from the sources</source>
        <translation>Écrit par le modèle à partir des sources</translation>
    </message>
    <message>
        <source>Written by {model} from the sources</source>
        <translation>Écrit par {model} à partir des sources</translation>
    </message>
    <message>
        <source>Listing documents</source>
        <translation>Liste des documents</translation>
    </message>
    <message>
        <source>Outline of the document, in its own sentences</source>
        <translation>Structure du document, dans ses propres phrases</translation>
    </message>
    <message>
        <source>Summary written by the model; below it, the outline in the document&apos;s own sentences</source>
        <translation>Résumé écrit par le modèle ; en dessous, la structure dans les phrases mêmes du document</translation>
    </message>
    <message>
        <source>Summary written by {model}; below it, the outline in the document&apos;s own sentences</source>
        <translation>Résumé écrit par {model} ; en dessous, la structure dans les phrases mêmes du document</translation>
    </message>
    <message>
        <source>From your documents&apos; own sentences</source>
        <translation>À partir des phrases mêmes de vos documents</translation>
    </message>
    <message>
        <source>p. {page}</source>
        <comment>a page, short</comment>
        <translation>p. {page}</translation>
    </message>
    <message>
        <source>page {page}</source>
        <translation>page {page}</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>Le modèle a répondu avec des mots que ses sources ne contiennent pas, d’après ce qu’il sait plutôt que d’après vos documents ; leurs phrases mêmes sont donc affichées à la place.</translation>
    </message>
    <message>
        <source>The model answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>Le modèle a répondu avec des mots que ses sources ne contiennent pas, d’après ce qu’il sait plutôt que d’après vos documents ; sa réponse n’est donc pas affichée.</translation>
    </message>
    <message>
        <source>The model found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>Le modèle n’a pas trouvé de réponse dans les sources ; les phrases de celles-ci qui semblent répondre sont donc affichées à la place.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so their own sentences are shown instead.</source>
        <translation>{model} a répondu avec des mots que ses sources ne contiennent pas, d’après ce qu’il sait plutôt que d’après vos documents ; leurs phrases mêmes sont donc affichées à la place.</translation>
    </message>
    <message>
        <source>{model} answered in words its sources do not hold, from what it knows rather than from your documents, so its answer is not shown.</source>
        <translation>{model} a répondu avec des mots que ses sources ne contiennent pas, d’après ce qu’il sait plutôt que d’après vos documents ; sa réponse n’est donc pas affichée.</translation>
    </message>
    <message>
        <source>{model} found no answer in the sources, so the sentences of them that seem to answer are shown instead.</source>
        <translation>{model} n’a pas trouvé de réponse dans les sources ; les phrases de celles-ci qui semblent répondre sont donc affichées à la place.</translation>
    </message>
    <message>
        <source>The model&apos;s answer said {words}, which its sources do not, so their own sentences are shown instead.</source>
        <translation>La réponse du modèle mentionnait {words}, ce que ses sources ne disent pas ; leurs phrases mêmes sont donc affichées à la place.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} does not appear in its sources.</source>
        <translation>Vérifiez cette réponse : {figures} n’apparaît pas dans ses sources.</translation>
    </message>
    <message>
        <source>Check this answer: {figures} do not appear in its sources.</source>
        <translation>Vérifiez cette réponse : {figures} n’apparaissent pas dans ses sources.</translation>
    </message>
    <message>
        <source>Cited [{n}]: its words are there, not in {sources} as the model wrote.</source>
        <translation>Cité [{n}] : ses mots s’y trouvent, et non dans {sources} comme l’a écrit le modèle.</translation>
    </message>
    <message>
        <source>as you chose</source>
        <translation>selon votre choix</translation>
    </message>
    <message>
        <source>it asks about one document but names none</source>
        <translation>la question porte sur un document sans en nommer aucun</translation>
    </message>
    <message>
        <source>asks for a summary or an outline</source>
        <translation>demande un résumé ou une structure</translation>
    </message>
    <message>
        <source>asks for a summary</source>
        <translation>demande un résumé</translation>
    </message>
    <message>
        <source>asks what a document is about</source>
        <translation>demande de quoi parle un document</translation>
    </message>
    <message>
        <source>asks for a document&apos;s main points</source>
        <translation>demande les points principaux d’un document</translation>
    </message>
    <message>
        <source>asks for the contents or the structure</source>
        <translation>demande le contenu ou la structure</translation>
    </message>
    <message>
        <source>asks what a part or a document covers</source>
        <translation>demande ce que couvre une partie ou un document</translation>
    </message>
    <message>
        <source>asks to read a document for the user</source>
        <translation>demande de lire un document à votre place</translation>
    </message>
    <message>
        <source>asks which documents</source>
        <translation>demande quels documents</translation>
    </message>
    <message>
        <source>counts documents</source>
        <translation>compte des documents</translation>
    </message>
    <message>
        <source>lists documents</source>
        <translation>énumère des documents</translation>
    </message>
    <message>
        <source>asks whether any document has it</source>
        <translation>demande si un document le contient</translation>
    </message>
    <message>
        <source>asks about the library or a collection</source>
        <translation>porte sur la bibliothèque ou une collection</translation>
    </message>
    <message>
        <source>Answering from passages</source>
        <translation>Réponse à partir des passages</translation>
    </message>
    <message>
        <source>Outline of {name}</source>
        <translation>Structure de {name}</translation>
    </message>
    <message>
        <source>Your library is now read by the multilingual embedder (Settings &gt; “My documents are in several languages”), and its index was made by the English one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Votre bibliothèque est désormais lue par le modèle de plongement multilingue (Paramètres &gt; « Mes documents sont en plusieurs langues »), mais son index a été créé par le modèle anglais : il doit donc être reconstruit. D’ici là, la recherche se fait uniquement par ses mots.</translation>
    </message>
    <message>
        <source>Your library is read by the English embedder again, and its index was made by the multilingual one, so it must be rebuilt. Until then it is searched by its words only.</source>
        <translation>Votre bibliothèque est de nouveau lue par le modèle de plongement anglais, mais son index a été créé par le modèle multilingue : il doit donc être reconstruit. D’ici là, la recherche se fait uniquement par ses mots.</translation>
    </message>
    <message>
        <source>A rebuild should take about 1 minute; the current index keeps answering meanwhile.</source>
        <translation>La reconstruction devrait prendre environ 1 minute ; l’index actuel continue de répondre entre-temps.</translation>
    </message>
    <message>
        <source>A rebuild should take about {minutes} minutes; the current index keeps answering meanwhile.</source>
        <translation>La reconstruction devrait prendre environ {minutes} minutes ; l’index actuel continue de répondre entre-temps.</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Desktop RAG is already running</source>
        <translation>Desktop RAG est déjà en cours d’exécution</translation>
    </message>
</context>
</TS>
